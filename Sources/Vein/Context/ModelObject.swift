import Foundation
import Synchronization

/// One row as an object: a schema-driven model instance living in one `ObjectContext`.
///
/// Its values are guarded by the context's lock, so an object may be read and written from any thread.
/// Writes go through the context (`set`), which keeps inverse relationships in step and records the
/// change until `save`.
public final class ModelObject: @unchecked Sendable, CustomStringConvertible {
    /// The row's key, as text. It changes only while its context saves: an insert that becomes the
    /// update of a stored row holding its unique value takes that row's key (ObjectContext+SaveUpsert.swift),
    /// and a save that fails gives it back (a later save may take a key again). Readers outside the
    /// context's lock (VeinCore's `persistentModelID`, messages) see one key or the other, never a torn value.
    public var id: String {
        idLock.withLock { _ in
            if let idText { return idText }
            let made = key.text
            idText = made
            return made
        }
    }
    /// The key as its 128 bits (`ObjectKey`), which the identity map reads. Written only by `rekey`, which
    /// holds both the context's lock and `idLock`; so read under either one, it is never torn.
    @exclusivity(unchecked) private(set) var key: ObjectKey
    // The three below sit in the space the key leaves before the next word (an object's heap block has a
    // size class, and a word more can move it to the next one). The two flags are guarded by the
    // context's lock.
    var state: State
    /// Set by an insert that asks for it (VeinCore's): at save, a stored row holding one of the object's
    /// unique values makes the insert an update of that row instead of a refused save.
    var upsertsOnSave = false
    /// Guards `idText`. A leaf lock, not the context's: VeinCore asks for `id` under its instance lock,
    /// which the context's lock must precede. A lock over nothing, beside the text it guards, so that it
    /// fits the space above (a `Mutex<String?>` is a word more).
    private let idLock = Mutex(())
    /// The key's text, made at the first `id` asked and kept: most fetched objects are never asked, and
    /// a string per object was a large part of what it held.
    @exclusivity(unchecked) private var idText: String?
    let layout: ModelLayout
    /// The context, held weakly through its layout's handle: the context's identity map and pending work hold
    /// objects strongly, so a strong reference back would be a cycle (VeinCore's typed instances hold
    /// the context instead; see `ObjectContext`). An object that outlives its context reads the values it
    /// holds; what needs the context (a lazy field not read yet, a relationship, a write) throws
    /// `ContextError.contextClosed`.
    private var handle: ContextHandle { layout.handle }
    package var owner: ObjectContext? { handle.context }

    package var context: ObjectContext {
        get throws(ContextError) {
            guard let owner else { throw ContextError.contextClosed(model: layout.model.name, id: id) }
            return owner
        }
    }

    public enum State: Sendable { case inserted, persisted, deleted }

    // Guarded by context.lock.
    /// The values, one per column of the layout (`ModelLayout.columns`), in one heap block of exactly
    /// that many, which the object owns: an array's header (its count, capacity and reference count) was
    /// more in every object, and an object's values never change in number. Read and written through
    /// `subscript(column:)`, or all at once through `values`.
    private let cells: UnsafeMutablePointer<Value>
    /// Lazy columns and to-many relationships not read yet. Exempt from Swift's run-time exclusivity
    /// checks, as a field read touches it: the lock is what keeps accesses apart, and a check costs two
    /// runtime calls on every read.
    @exclusivity(unchecked) var unloaded: Set<Int>

    /// The value of column `i` (the context's lock held).
    subscript(column i: Int) -> Value {
        get { cells[checked(i)] }
        set { cells[checked(i)] = newValue }
    }

    /// Every column's value, copied (the context's lock held); set, it replaces them all.
    var values: [Value] {
        get { Array(UnsafeBufferPointer(start: cells, count: layout.columnCount)) }
        set {
            precondition(newValue.count == layout.columnCount, "\(newValue.count) values for the \(layout.columnCount) columns of \(modelName)")
            for (i, value) in newValue.enumerated() { cells[i] = value }
        }
    }

    private func checked(_ i: Int) -> Int {
        precondition(UInt(bitPattern: i) < UInt(layout.columnCount), "no column \(i) in \(modelName)")
        return i
    }
    /// The context's `ReadClock` time when the values were read.
    var readAt: Int
    /// What only an object with unsaved changes holds (`ObjectEdits`), made at its first change.
    @exclusivity(unchecked) private var edits: ObjectEdits?

    /// Columns changed since the last save (persisted objects only; not to-many, see `linkChanges`).
    var changed: Set<Int> {
        get { edits?.changed ?? [] }
        set { if edits != nil || !newValue.isEmpty { editsMade.changed = newValue } }
        _modify { yield &editsMade.changed }
    }
    /// To-many relationships changed since the last save, by column index.
    var linkChanges: [Int: LinkChange] {
        get { edits?.linkChanges ?? [:] }
        set { if edits != nil || !newValue.isEmpty { editsMade.linkChanges = newValue } }
        _modify { yield &editsMade.linkChanges }
    }
    /// The row as this context last read or saved it (nil for a column never read), kept from the first
    /// change after that until the next save. `save` compares the stored row with it: another process
    /// that changed the row meanwhile makes the save a conflict instead of a lost update.
    var readValues: [Value?]? {
        get { edits?.readValues }
        set { if edits != nil || newValue != nil { editsMade.readValues = newValue } }
        _modify { yield &editsMade.readValues }
    }
    /// The columns set since the insert (of an object that `upsertsOnSave`): the relationships among them
    /// are the ones such an update takes from the object; the row keeps the others as stored.
    var setSinceInsert: Set<Int> {
        get { edits?.setSinceInsert ?? [] }
        set { if edits != nil || !newValue.isEmpty { editsMade.setSinceInsert = newValue } }
        _modify { yield &editsMade.setSinceInsert }
    }

    private var editsMade: ObjectEdits {
        if let edits { return edits }
        let made = ObjectEdits()
        edits = made
        return made
    }
    /// The typed instance over this object (VeinCore's `@Model` class) while it lives: one instance per
    /// row per context while the app holds it. Guarded by VeinCore (`ModelBacking.instanceLock`).
    package var typedModel: AnyObject? {
        get { typedInstance.load() }
        set { typedInstance.store(newValue) }
    }
    private var typedInstance = InstanceLink()

    /// An object holding `values`, one per column of `layout`.
    convenience init(key: ObjectKey, layout: ModelLayout, values: [Value], unloaded: Set<Int>, state: State, readAt: Int) {
        precondition(values.count == layout.columnCount, "\(values.count) values for the \(layout.columnCount) columns of \(layout.model.name)")
        self.init(key: key, layout: layout, unloaded: unloaded, state: state, readAt: readAt) { cells in
            for (i, value) in values.enumerated() { cells[i] = value }
        }
    }

    /// An object whose values `fill` writes, each column null until it does; when `fill` throws, nothing
    /// is made (a fetch writes a row's cells here straight from the statement, without an array between).
    init<E: Error>(key: ObjectKey, layout: ModelLayout, unloaded: Set<Int>, state: State, readAt: Int,
                   fill: (UnsafeMutableBufferPointer<Value>) throws(E) -> Void) throws(E) {
        let count = layout.columnCount
        let cells = UnsafeMutablePointer<Value>.allocate(capacity: count)
        cells.initialize(repeating: .null, count: count)
        do {
            try fill(UnsafeMutableBufferPointer(start: cells, count: count))
        } catch {
            cells.deinitialize(count: count)
            cells.deallocate()
            throw error
        }
        self.key = key
        self.state = state
        self.layout = layout
        self.cells = cells
        self.unloaded = unloaded
        self.readAt = readAt
    }

    deinit {
        cells.deinitialize(count: layout.columnCount)
        cells.deallocate()
    }

    /// Gives the object another key. The caller holds the context's lock and has taken the object out of
    /// every map keyed by it (KeyedObjects.swift, invariant 2).
    func rekey(_ newID: String) {
        idLock.withLock { _ in
            key = ObjectKey(newID)
            idText = newID
        }
    }

    public var model: ModelSchema { layout.model }
    public var modelName: String { layout.model.name }

    /// True once deleted in its context (or when the context is gone).
    public var isDeleted: Bool {
        guard let owner else { return true }
        return owner.lock.withLock { state == .deleted }
    }

    /// A field's or relationship's current value (a to-one as the target's id, a to-many as ids).
    /// Lazy fields are read from the store on first access.
    public subscript(key: String) -> Value {
        get throws { try value(of: key, column: -1) }
    }

    /// The value of `key`, as `self[key]`; `column` is where the caller expects it among the model's
    /// columns (`ModelLayout.columnIndex(_:hint:)`), -1 when it does not know.
    public func value(of key: String, column hint: Int) throws -> Value {
        // A loaded column: its value, under the context's lock, without the context (also once the
        // context is gone or closed: an object keeps its last values).
        try handle.lock.withLock {
            if let i = layout.columnIndex(key, hint: hint), unloaded.isEmpty || !unloaded.contains(i) { return cells[checked(i)] }
            return try context.value(of: self, key, column: hint)
        }
    }

    public func set(_ key: String, _ value: Value) throws {
        try context.set(self, key, value)
    }

    /// `set(key, value)`, `column` being where the caller expects `key` (-1 when it does not know).
    public func set(_ key: String, column hint: Int, _ value: Value) throws {
        try context.set(self, key, value, column: hint)
    }

    /// The objects a relationship points to, in order.
    public func related(_ relationship: String) throws -> [ModelObject] {
        try context.related(self, relationship)
    }

    public var description: String { "\(modelName)(\(id))" }
}
