import Foundation

/// A unit of work over a store, as SwiftData's `ModelContext`: objects are inserted, changed and
/// deleted in memory, and `save` writes them all in one transaction, or nothing.
///
/// Invariants:
/// - One object per row per context (a weak identity map): fetching a row twice gives the same object
///   (ARCHITECTURE.md I1).
/// - Pending changes stay until `save` succeeds; a failed save leaves the store untouched and the
///   changes pending; `rollback` discards them (ARCHITECTURE.md I2).
/// - Both sides of an inverse relationship pair always agree in memory; a save never writes an id that
///   names no row (ARCHITECTURE.md I5).
/// - All state is guarded by one recursive lock, so contexts and objects can be shared across threads.
/// - Each context made from a store (ARCHITECTURE.md I6) works on a connection of its own, opened at its first use of the
///   store: contexts on different threads share no SQLite state (a connection and its statement cache are
///   for one thread at a time), and several of them work on one store file as separate processes would.
///
/// Ownership (strong → unless marked weak or unowned):
///
///     app ─→ typed instance (VeinCore) ─→ ModelObject ─→ ModelLayout ─→ ContextHandle (lock) ┄weak┄→ ObjectContext
///            typed instance ─→ ObjectContext ─→ IdentityMap, PendingChanges ─→ ModelObject ┄unowned┄→ typed instance
///            ObjectContext ─→ connection
///
/// - A typed instance keeps its context, and so its connection, alive (SwiftData's `modelContext`): a
///   context made per call may return what it fetched. Nothing in the engine holds a typed instance
///   strongly, so there is no cycle: when the app holds neither the context nor any of its instances,
///   all of it goes, pending (unsaved) work included.
/// - An engine `ModelObject` holds its context only weakly (a strong reference would make a cycle through
///   the identity map, and a weak map costs a side table per row): engine callers keep the context while
///   they use lazy fields and relationships. Once it is gone, an object still reads the values it holds.
/// - A deleted or detached (rolled-back) object reads its last values, its relationships empty.
/// - `close()` closes the connection early (`ModelContainer.close()`); afterwards what needs the store
///   throws `StoreError.closed`.
public final class ObjectContext: @unchecked Sendable {
    public let manifest: SchemaManifest
    /// Guards all of the context's state and its objects' (kept by the handle, see `ContextHandle.lock`).
    package var lock: NSRecursiveLock { handle.lock }
    /// The connection, once opened (`database`).
    var connection: Database? {
        didSet { interruptTarget = connection }
    }
    /// The opened connection again, read without the lock: `interrupt()` runs from a signal handler or
    /// another thread while a fetch holds the lock. Written once, when the connection opens.
    nonisolated(unsafe) private(set) var interruptTarget: Database?
    /// Opens the context's own connection; nil for a context made over a given connection.
    private let connect: (() throws -> Database)?
    /// The store's path as its user gave it, for messages.
    let path: String
    var layouts: [String: ModelLayout] = [:]

    let handle = ContextHandle()
    /// One object per row (IdentityMap.swift).
    var identityMap = IdentityMap()
    /// The unit of work until it is saved or rolled back (Pending/PendingChanges.swift).
    var pending = PendingChanges()
    /// Set by `close()`: every use of the store throws `StoreError.closed`.
    var isClosed = false

    #if VEIN_TEST_HOOKS
    /// Test hook: called before each row written by `save`, with the number written so far. Debug builds
    /// only (Package.swift defines VEIN_TEST_HOOKS for them).
    package var saveFailureInjection: (@Sendable (Int) throws -> Void)?
    #endif

    /// What the store said of itself when it was opened: each transaction checks the store still holds
    /// that schema (nil for a context over a bare connection, such as a migration's, which changes it).
    private let openedMeta: (meta: StoreMeta, path: String)?
    /// When the objects' copies of their rows were read (ReadClock.swift).
    var readClock = ReadClock()
    /// The store file's real path, under which saves are announced (`StoreChangeCenter`); nil for a
    /// context over a bare connection (a migration's), whose work is announced by no one.
    package let storeRealPath: String?
    /// What saves wrote, announced once committed (SaveAnnouncer.swift).
    var announcer = SaveAnnouncer()
    /// Who this context's saves are by, in the store's change log (SwiftData's `ModelContext.author`;
    /// docs/history.md). Nil: the store's author (the `vein` command), or none.
    public var author: String? {
        get { lock.withLock { authorName } }
        set { lock.withLock { authorName = newValue; (connection?.transactionObserver as? ChangeRecorder)?.contextAuthor = newValue } }
    }
    private var authorName: String?

    public convenience init(store: Store) {
        self.init(store: store, readWithEveryRow: [:])
    }

    /// A context whose fetches read the fields `readWithEveryRow` names (by model) with every row, lazy
    /// or not, whatever columns a fetch names: VeinCore's typed contexts, for the required fields whose
    /// Swift type has no empty value to read once the row is gone (`ModelLayout.readWithEveryRow`).
    package init(store: Store, readWithEveryRow: [String: Set<String>]) {
        self.manifest = store.manifest
        // A store made around a connection it cannot open again (a plan check's in-memory database) lends
        // that one; its contexts then belong to the thread that uses the store.
        connect = { try store.openConnection() ?? store.database }
        path = store.path
        openedMeta = (store.meta, store.path)
        storeRealPath = store.realPath
        layouts = Self.layouts(of: manifest, readWithEveryRow: readWithEveryRow, handle: handle)
        handle.context = self
    }

    /// A context over any connection holding a schema (tests, migrations); `readWithEveryRow` as for a store's.
    package init(database: Database, manifest: SchemaManifest, readWithEveryRow: [String: Set<String>] = [:]) throws(DatabaseError) {
        self.manifest = manifest
        connection = database
        interruptTarget = database
        connect = nil
        path = database.path
        openedMeta = nil
        storeRealPath = nil
        try database.install(SQLFunctions.self)
        layouts = Self.layouts(of: manifest, readWithEveryRow: readWithEveryRow, handle: handle)
        handle.context = self
    }

    private static func layouts(of manifest: SchemaManifest, readWithEveryRow: [String: Set<String>],
                                handle: ContextHandle) -> [String: ModelLayout] {
        Dictionary(manifest.models.map {
            ($0.name, ModelLayout(model: $0, manifest: manifest, handle: handle, readWithEveryRow: readWithEveryRow[$0.name] ?? []))
        }, uniquingKeysWith: { _, last in last })
    }

    /// Runs `body` in one transaction of the context's connection (a savepoint when one is open), after
    /// checking that the store still holds the schema the context was made for. Work that reads and then
    /// writes (an update computed from the rows it changes) runs in one `.immediate` transaction and saves
    /// inside it: no other process can change those rows in between. If the body saved and the commit then
    /// fails, the context counts the changes as saved; discard it.
    public func transaction<T>(_ kind: Database.TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        var committed: Set<String> = []
        defer { SaveAnnouncer.announce(committed, storeAt: storeRealPath) }
        return try lock.withLock {
            readClock.beginTransaction()
            do {
                let result = try database.transaction(kind) {
                    try requireSchemaUnchanged()
                    return try body()
                }
                // The outermost transaction committed: what its saves wrote is in the store now.
                if try !database.isInTransaction { committed = announcer.transactionCommitted() }
                return result
            } catch let error as DatabaseError where error.isBusy {
                if try !database.isInTransaction { announcer.transactionRolledBack() }
                throw StoreError.busy(path)
            } catch {
                if try !database.isInTransaction { announcer.transactionRolledBack() }
                throw error
            }
        }
    }

    /// The context's connection, opened at the first use (the compiled conditions' SQL functions installed).
    var database: Database {
        get throws {
            try lock.withLock {
                if isClosed { throw StoreError.closed(path) }
                if let connection { return connection }
                let opened = try connect!()
                try opened.install(SQLFunctions.self)
                (opened.transactionObserver as? ChangeRecorder)?.contextAuthor = authorName
                connection = opened
                readClock.observe(dataVersion: try opened.scalar("PRAGMA data_version")?.int64, opening: true)
                return opened
            }
        }
    }

    func requireSchemaUnchanged() throws {
        guard let openedMeta else { return }
        try openedMeta.meta.requireSchemaUnchanged(in: database, path: openedMeta.path)
    }

    func layout(_ model: String) throws -> ModelLayout {
        guard let layout = layouts[model] else {
            throw ContextError.unknownModel(model)
        }
        return layout
    }

    // MARK: Inserting

    /// Inserts a new object. Values not given take their default (nil for optionals); a required field
    /// with neither is an error. Relationship values are ids of existing objects.
    @discardableResult
    public func insert(_ model: String, _ values: [String: Value] = [:]) throws -> ModelObject {
        try insert(model, givenValues: values.lazy.map { (key: $0.key, column: -1, value: $0.value) })
    }

    /// `insert(model, values)` with the values as a list of distinct names (VeinCore's pending values).
    @discardableResult
    package func insert(_ model: String, fieldValues values: [(key: String, value: Value)]) throws -> ModelObject {
        try insert(model, givenValues: values.lazy.map { (key: $0.key, column: -1, value: $0.value) })
    }

    /// `insert(_:fieldValues:)` of values that each name the column where the caller expects them
    /// (`ModelLayout.columnIndex(_:hint:)`; -1 when it does not know).
    /// `id`: the row's key when the caller chose it (a typed instance's key, given before its insert).
    /// `upsertsOnSave`: a stored row that holds one of the object's unique values when it is saved is
    /// updated instead (`ModelObject.upsertsOnSave`).
    @discardableResult
    package func insert(_ model: String, pendingValues values: [PendingValue], id: ULID? = nil, upsertsOnSave: Bool = false) throws -> ModelObject {
        try insert(model, givenValues: values.lazy.map { (key: $0.key, column: $0.column, value: $0.value) }, id: id, upsertsOnSave: upsertsOnSave)
    }

    private func insert<Values: Sequence<(key: String, column: Int, value: Value)>>(_ model: String, givenValues values: Values,
                                                                                 id: ULID? = nil, upsertsOnSave: Bool = false) throws -> ModelObject {
        try lock.withLock {
            let layout = try layout(model)
            // One lookup per given value; everything after works by column position.
            var given = [Value?](repeating: nil, count: layout.columns.count)
            for (key, column, value) in values {
                guard let i = layout.columnIndex(key, hint: column) else {
                    throw ContextError.unknownField(model: model, field: key, suggestion: Suggestion.closest(to: key, in: layout.columns))
                }
                given[i] = value
            }
            return try insert(layout, given, id: id, upsertsOnSave: upsertsOnSave)
        }
    }

    /// Inserts with values in the model's column order (`ModelSchema.columnNames`), nil for "not given":
    /// the positional fast path for bulk work (import, benchmarks), free of per-row key hashing.
    @discardableResult
    public func insert(_ model: String, columnValues: [Value?]) throws -> ModelObject {
        try lock.withLock {
            let layout = try layout(model)
            guard columnValues.count == layout.columns.count else {
                throw ContextError.typeMismatch(model: model, field: "*", expected: "\(layout.columns.count) column values",
                                                found: "\(columnValues.count)")
            }
            return try insert(layout, columnValues)
        }
    }

    private func insert(_ layout: ModelLayout, _ given: [Value?], id: ULID? = nil, upsertsOnSave: Bool = false) throws -> ModelObject {
        var initial: [Value] = []
        initial.reserveCapacity(layout.columns.count)
        var relationshipValues: [(column: Int, value: Value, targets: [ModelObject])] = []
        for i in layout.columns.indices {
            if let value = given[i] {
                if let rel = layout.relationships[i] {
                    // Checked before the object exists, so a refused insert leaves nothing.
                    let targets = try resolveTargets(rel, value, model: layout.model.name, key: layout.columns[i])
                    relationshipValues.append((i, value, targets))
                    initial.append(layout.initialValue(i)!)
                } else {
                    initial.append(try checked(value, layout: layout, column: i))
                }
            } else if let v = layout.initialValue(i) {
                initial.append(v)
            } else {
                throw ContextError.missingValue(model: layout.model.name, field: layout.columns[i])
            }
        }
        let key = ObjectKey(id ?? ULID.make())
        let object = readClock.makeObject(key: key, layout: layout, values: initial, unloaded: [], state: .inserted)
        object.upsertsOnSave = upsertsOnSave
        identityMap.register(object)
        pending.aboutToChange(object)
        pending.recordInsert(object)
        guard !relationshipValues.isEmpty else { return object }
        if relationshipValues.allSatisfy({ layout.linksWithoutReading[$0.column] }) {
            // No link can fail now that its target is found: each is made as `set` makes it, without the
            // state `setAll` keeps to put back a link that fails.
            for link in relationshipValues { linkNewObject(object, link.column, to: link.targets.first) }
            return object
        }
        // Other relationships go through `set`, which keeps the inverse sides in step; all or nothing: a
        // link that fails puts back what the others changed, and the object is not left pending.
        do {
            try setAll(relationshipValues.map { (object, layout.columns[$0.column], $0.value) }, outside: [ObjectIdentifier(object)])
        } catch {
            discardInserted([object])
            throw error
        }
        return object
    }

    /// A field value checked against its type and put in its stored normal form (`FieldCodec`).
    func checked(_ value: Value, layout: ModelLayout, column i: Int) throws -> Value {
        let codec = layout.codecs[i]!
        do {
            return try codec.normalized(value)
        } catch .wrongType {
            throw ContextError.typeMismatch(model: layout.model.name, field: layout.columns[i], expected: codec.swiftTypeDescription,
                                            found: value.typeName)
        } catch .unstorable(let expected, let found) {
            // A value of the right type that a cell cannot hold as it is: SQLite stores NaN as NULL, and a
            // stored infinity or a date outside four-digit years is a cell every reader refuses.
            throw ContextError.typeMismatch(model: layout.model.name, field: layout.columns[i], expected: expected, found: found)
        }
    }

    // MARK: Reading and writing values

    func value(of object: ModelObject, _ key: String, column hint: Int = -1) throws -> Value {
        try lock.withLock {
            guard let i = object.layout.columnIndex(key, hint: hint) else {
                if key == StoreFormat.current.keyColumn { return .string(object.id) }
                throw ContextError.unknownField(model: object.modelName, field: key,
                                                suggestion: Suggestion.closest(to: key, in: object.layout.columns))
            }
            // Most objects have every column loaded: no hash of `i` for them.
            if !object.unloaded.isEmpty, object.unloaded.contains(i) { try loadLazy(object, i) }
            return object[column: i]
        }
    }

    func loadLazy(_ object: ModelObject, _ i: Int) throws {
        if object.layout.isToMany[i] { return try loadToMany(object, i) }
        let sql = "SELECT \(SQL.quoteIdentifier(object.layout.columns[i])) FROM \(object.layout.table) WHERE \(StoreFormat.key) = ?"
        let statement = try database.cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind([.text(object.id)])
        let value = try statement.step() ? try object.layout.read(statement, 0, as: i, id: object.id) : .null
        object[column: i] = value
        object.unloaded.remove(i)
        if object.readValues != nil { object.readValues![i] = value }
    }

    /// Sets a field or relationship. Relationships keep their inverse in step on the other objects.
    func set(_ object: ModelObject, _ key: String, _ value: Value, column hint: Int = -1) throws {
        try lock.withLock {
            guard object.state != .deleted else { throw ContextError.objectDeleted(model: object.modelName, id: object.id) }
            let layout = object.layout
            guard let i = layout.columnIndex(key, hint: hint) else {
                throw ContextError.unknownField(model: object.modelName, field: key, suggestion: Suggestion.closest(to: key, in: layout.columns))
            }
            guard let rel = layout.relationships[i] else {
                let v = try checked(value, layout: layout, column: i)
                write(object, i, v)
                object.unloaded.remove(i)  // after `write`: a lazy column never read is not part of what was read
                return
            }
            let targets = try resolveTargets(rel, value, model: object.modelName, key: key)
            let newIDs = targets.map(\.id)
            if object.unloaded.contains(i) { try loadLazy(object, i) }
            let oldIDs = ids(in: object[column: i])
            if rel.isToMany {
                replaceLinks(object, i, newIDs)
            } else {
                write(object, i, newIDs.first.map(Value.string) ?? .null)
            }
            guard let inverseName = rel.inverse else { return }
            for removed in oldIDs where !newIDs.contains(removed) {
                if let target = try self.object(rel.target, id: removed) { try unlink(target, inverseName, object.id) }
            }
            for target in targets where !oldIDs.contains(target.id) {
                try linkInverse(target, inverseName, to: object, forwardName: key)
            }
        }
    }

    /// The objects a relationship value names, checked: the right shape (an id or nil for a to-one, ids
    /// for a to-many), each id naming an existing, undeleted object of the target model. Duplicates in a
    /// to-many are dropped, keeping the first.
    func resolveTargets(_ rel: RelationshipSchema, _ value: Value, model: String, key: String) throws -> [ModelObject] {
        let requested: [String]
        switch (rel.isToMany, value) {
        case (false, .null): requested = []
        case (false, .string(let id)): requested = [id]
        case (true, .array(let items)):
            var seen = Set<String>(), ids: [String] = []
            for item in items {
                guard case .string(let id) = item else {
                    throw ContextError.typeMismatch(model: model, field: key, expected: "[\(rel.target)] ids", found: item.typeName)
                }
                if seen.insert(id).inserted { ids.append(id) }
            }
            requested = ids
        default:
            throw ContextError.typeMismatch(model: model, field: key,
                                            expected: rel.isToMany ? "[\(rel.target)] ids" : "\(rel.target) id or nil", found: value.typeName)
        }
        return try requested.map { id in
            guard let target = try self.object(rel.target, id: id) else {
                throw ContextError.danglingReference(model: model, field: key, id: id)
            }
            return target
        }
    }

    /// Records a new value and the change.
    func write(_ object: ModelObject, _ i: Int, _ value: Value) {
        pending.aboutToChange(object)
        if object.state == .persisted {
            keepReadValues(object)
            object.changed.insert(i)
            pending.recordUpdate(object)
        } else if object.upsertsOnSave {
            object.setSinceInsert.insert(i)
        }
        object[column: i] = value
    }

    /// Keeps the row as read before its first change, for `save`'s check against other writers. To-many
    /// lists are not part of the row: their links are written one by one, each an idempotent insert or
    /// delete of an (owner, member) pair, so no other writer's link is lost.
    func keepReadValues(_ object: ModelObject) {
        guard object.readValues == nil else { return }
        object.readValues = object.layout.columns.indices.map {
            object.unloaded.contains($0) || object.layout.isToMany[$0] ? nil : object[column: $0]
        }
    }

    func ids(in value: Value) -> [String] {
        switch value {
        case .string(let id): return [id]
        case .array(let items): return items.compactMap(\.stringValue)
        default: return []
        }
    }

    /// Removes `id` from `object.relationship` without touching the inverse (the caller owns that side).
    func unlink(_ object: ModelObject, _ relationship: String, _ id: String) throws {
        guard object.state != .deleted, let i = object.layout.index[relationship] else { return }
        if object.layout.isToMany[i] { return removeLink(object, i, id) }
        if object.unloaded.contains(i) { try loadLazy(object, i) }
        switch object[column: i] {
        case .string(id): write(object, i, .null)
        case .array(let items) where items.contains(.string(id)): write(object, i, .array(items.filter { $0 != .string(id) }))
        default: break
        }
    }

    /// What `set` does for a to-one of `layout.linksWithoutReading` on an object just inserted (it names
    /// nothing yet, so nothing is unlinked): the value, and the target's inverse list.
    private func linkNewObject(_ object: ModelObject, _ i: Int, to target: ModelObject?) {
        write(object, i, target.map { .string($0.id) } ?? .null)
        guard let target, let inverse = object.layout.relationships[i]!.inverse, let j = target.layout.index[inverse] else { return }
        addLink(target, j, object.id)
    }

    /// Makes `target.inverse` include `owner`. When the inverse is a to-one, the target leaves the
    /// relationship of whichever object held it before (a to-one names one object).
    private func linkInverse(_ target: ModelObject, _ inverse: String, to owner: ModelObject, forwardName: String) throws {
        guard let i = target.layout.index[inverse], let inverseRel = target.layout.relationships[i] else { return }
        if inverseRel.isToMany {
            addLink(target, i, owner.id)
        } else {
            if case .string(let previous) = target[column: i], previous != owner.id,
               let previousOwner = try self.object(owner.modelName, id: previous) {
                try unlink(previousOwner, forwardName, target.id)
            }
            write(target, i, .string(owner.id))
        }
    }

    func related(_ object: ModelObject, _ relationship: String) throws -> [ModelObject] {
        try lock.withLock {
            guard let i = object.layout.index[relationship], let rel = object.layout.relationships[i] else {
                throw ContextError.unknownField(model: object.modelName, field: relationship, suggestion: nil)
            }
            // A deleted or detached object is a record of its last values, and points to nothing.
            if object.state == .deleted { return [] }
            if object.unloaded.contains(i) { try loadLazy(object, i) }
            return try ids(in: object[column: i]).compactMap { try self.object(rel.target, id: $0) }
        }
    }

    // MARK: Objects by id

    /// The object for a row: from the identity map, pending inserts, or the store. Nil when it does not
    /// exist or is deleted in this context.
    public func object(_ model: String, id: String) throws -> ModelObject? {
        try lock.withLock {
            // An object of another model under this id (ids imported into two tables) is not this row's:
            // the row is read from the store (`materialize` keeps it out of the map).
            if let object = identityMap[ObjectKey(id)], object.modelName == model {
                if object.state == .deleted { return nil }
                if !isStale(object) { return object }
            }
            let layout = try layout(model)
            let statement = try database.cachedStatement("SELECT \(layout.selectList) FROM \(layout.table) WHERE \(StoreFormat.key) = ?")
            defer { statement.reset() }
            try statement.bind([.text(id)])
            guard try statement.step() else { return nil }
            return try materialize(statement, layout: layout)
        }
    }

    /// The object for a row when this context already holds it (no read of the store).
    func loadedObject(_ model: String, id: String) -> ModelObject? {
        guard let object = identityMap[ObjectKey(id)], object.modelName == model, object.state != .deleted else { return nil }
        return object
    }

    /// The object for the current row of `statement` (columns as `layout.selectList`, or `projection`'s),
    /// reusing the identity map's object when the row is already known. Caller holds the lock.
    func materialize(_ statement: Statement, layout: ModelLayout, projection: RowProjection? = nil) throws -> ModelObject {
        let bytes = statement.textBytes(0)
        let key = ObjectKey(canonicalUTF8: bytes) ?? ObjectKey(statement.string(0))
        // The map is keyed by id alone: an object of another model under the same id (ids imported into
        // two tables) is not this row's; this row's object then stays out of the map, as in `materializeUnheld`.
        let held = identityMap[key]
        if let existing = held, existing.modelName == layout.model.name {
            if isStale(existing) || isOutdated(existing) {
                (existing.values, existing.unloaded) = try Self.read(statement, layout: layout, key: key, projection: projection)
                readClock.stamp(existing)
            }
            return existing
        }
        let object = try makeObject(reading: statement, layout: layout, key: key, projection: projection)
        if held == nil { identityMap.register(object) }
        return object
    }

    /// Every row of `statement` as a new object, for a model this context has never held an object of
    /// (`IdentityMap.hasHeld`): none of its rows can be in the identity map, so none is looked up, and the objects
    /// enter the map together, its table grown once to their number. A lookup and an insert per row, in
    /// a table that outgrows the caches and doubled some seventeen times on the way to 200,000 entries,
    /// were about half of a fetch's own work. Caller holds the lock, inside `registeringRetained`.
    func materializeUnheld(_ statement: Statement, layout: ModelLayout, projection: RowProjection? = nil) throws -> [ModelObject] {
        var objects: [ModelObject] = []
        while try statement.step() {
            let bytes = statement.textBytes(0)
            let key = ObjectKey(canonicalUTF8: bytes) ?? ObjectKey(statement.string(0))
            objects.append(try makeObject(reading: statement, layout: layout, key: key, projection: projection))
        }
        identityMap.registerUnheld(objects, layout: layout)
        return objects
    }

    /// A new object of the current row of `statement`, its cells written straight from the statement.
    private func makeObject(reading statement: Statement, layout: ModelLayout, key: ObjectKey,
                            projection: RowProjection?) throws -> ModelObject {
        let projection = projection ?? layout.row
        return try readClock.makeObject(key: key, layout: layout, unloaded: projection.unfetchedColumns,
                                        state: .persisted) { cells throws(DamagedValueError) in
            try layout.readRow(statement, key: key, projection: projection, into: cells)
        }
    }

    /// The current row's values (the columns `projection` leaves out unread: by default lazy columns
    /// and to-many).
    static func read(_ statement: Statement, layout: ModelLayout, key: ObjectKey, projection: RowProjection?) throws -> ([Value], Set<Int>) {
        let projection = projection ?? layout.row
        return (try layout.readRow(statement, key: key, projection: projection), projection.unfetchedColumns)
    }

    /// Whether an object without changes was read before the current `transaction` began. Met again in
    /// it (fetched, or looked up by id), it is read anew: a statement computes from the row as stored now,
    /// under its lock, not from an older read (which would make its save a conflict, or worse). Objects
    /// with changes keep them; `save` checks their rows.
    private func isStale(_ object: ModelObject) -> Bool {
        readClock.readBeforeThisTransaction(object) && hasNoUnsavedChange(object) && connection?.isInTransaction == true
    }

    /// A stored object this context has not changed: what it holds of the row is only a copy, which a
    /// read of the row may replace.
    func hasNoUnsavedChange(_ object: ModelObject) -> Bool {
        object.state == .persisted && object.readValues == nil && object.linkChanges.isEmpty
    }

    /// Runs a loop that registers objects it keeps in an array until it returns (a fetch): see
    /// `IdentityMap.beginRetaining`.
    func registeringRetained<T>(_ body: () throws -> T) rethrows -> T {
        identityMap.beginRetaining()
        defer { identityMap.endRetaining() }
        return try body()
    }

    /// Objects in the identity map (tests: the map must not keep unreferenced objects for long).
    var registeredObjectCount: Int { lock.withLock { identityMap.count } }

    // MARK: Rolling back

    /// Discards every pending change: inserted objects are forgotten, changed ones reloaded from the store.
    /// Observers of this context's rollbacks are told the models discarded (`StoreChangeCenter`).
    public func rollback() {
        var discarded: Set<String> = []
        defer { SaveAnnouncer.announceRollback(discarded, of: self) }
        lock.withLock {
            discarded = pending.modelsWritten(deletedModels: [], storages: relationshipStorages)
            for o in pending.discardAll() {
                identityMap.remove(o.key)
                o.state = .deleted  // detached: the next fetch makes a fresh object with the stored values
            }
        }
    }
}

extension Value {
    /// The value's type as messages name it (the names live in `ValueType.description`).
    var typeName: String {
        switch self {
        case .null: return ValueType.null.description
        case .string: return ValueType.string.description
        case .int: return ValueType.int.description
        case .double: return ValueType.double.description
        case .bool: return ValueType.bool.description
        case .date: return ValueType.date.description
        case .data: return ValueType.data.description
        case .array: return "array"
        }
    }
}
