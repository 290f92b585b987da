import Foundation
import Synchronization
import Vein

/// Where a model instance's values live. Before the instance is inserted, its values wait in
/// `UnattachedValues`; once inserted or fetched, every read and write goes to the engine's `ModelObject`
/// and so through its context (which holds the lock, keeps inverses in step, records changes until save, and
/// reads lazy fields on first access).
///
/// Ownership: an attached instance holds its engine object and that object's context strongly, as a
/// SwiftData model keeps its `modelContext`: a context made in a function lives as long as any instance
/// it returned. The engine holds instances only through a link that reads nil once the instance is gone
/// (`ModelObject.typedModel`), so nothing cycles: when the app lets go of the context and of every
/// instance, all of it, and its connection, goes.
///
/// Accessors cannot throw, and on a healthy store they never stop the program. A deleted or detached
/// (rolled-back) instance reads its last values (its relationships nil or empty); a write to it is not
/// made, and the next save throws `ContextError.writeToDeleted` (`writing`). What has no value to read
/// reads nil or an empty value (`AbsentFieldValue`). A stored value that does not fit the declared type
/// (a damaged store) stops the program with the engine's message, failing fast rather than returning a
/// wrong value. `model.value(of:)` and `model.setValue(_:for:)` are the throwing way (FieldAccess.swift).
public final class ModelBacking: @unchecked Sendable {
    /// Guards what an unattached instance holds (`UnattachedValues`), the attaching of an instance and
    /// every `ModelObject.typedModel`.
    static let instanceLock = NSRecursiveLock()
    /// The engine's object, an owned (+1) reference, set once and never changed after: once it is
    /// non-nil, readers take it without the instance lock (an accessor of an attached instance was two
    /// locks, the instance lock and the context's, for every field read). Written with release and read
    /// with acquire ordering, so a reader that sees it sees the object fully made.
    private let attachedObject = Atomic<UnsafeMutableRawPointer?>(nil)
    /// What the instance was given before it is in a context (nil once attached, and for a fetched one).
    private var unattached: UnattachedValues?
    private var unattachedValues: UnattachedValues {
        if let unattached { return unattached }
        let made = UnattachedValues()
        unattached = made
        return made
    }
    /// What keeps the attached object's context alive (see the type's comment): the engine's context, or
    /// a `ContextKeeper` of it. Set once, under the instance lock, right after `attach`; never read.
    private var keptContext: AnyObject?

    public init() {}

    deinit {
        if let raw = attachedObject.load(ordering: .acquiring) { Unmanaged<ModelObject>.fromOpaque(raw).release() }
    }

    private var attached: ModelObject? {
        attachedObject.load(ordering: .acquiring).map { Unmanaged<ModelObject>.fromOpaque($0).takeUnretainedValue() }
    }

    /// The engine's object, once the instance is in a context.
    public var object: ModelObject? { attached }

    /// Makes the instance the view of `object` (a fetched row, or the row its insert made). Once only:
    /// an instance is the view of one row for its whole life.
    public func attach(_ object: ModelObject) {
        Self.instanceLock.withLock {
            let raw = Unmanaged.passRetained(object).toOpaque()
            let (exchanged, _) = attachedObject.compareExchange(expected: nil, desired: raw, ordering: .releasing)
            if !exchanged { Unmanaged<ModelObject>.fromOpaque(raw).release() }
            else { unattached = nil }
        }
    }

    /// The row's key, or before the instance is in a context the key its insert will give the row.
    var key: String {
        if let attached { return attached.id }
        return Self.instanceLock.withLock {
            if let attached { return attached.id }
            let values = unattachedValues
            if values.reservedKey == nil { values.reservedKey = ULID.make() }
            return values.reservedKey!.description
        }
    }

    /// The key an insert makes the row under: the one `key` chose, if it was asked (nil: the engine's).
    /// Called with the instance lock held.
    var keyForInsert: ULID? { unattached?.reservedKey }

    /// Keeps `keeper` (the context of the attached object, or a `ContextKeeper` of it) alive as long as
    /// the instance. Called with the instance lock held, by whoever attached the instance.
    func keep(_ keeper: AnyObject?) {
        if keptContext == nil { keptContext = keeper }
    }

    // MARK: Fields
    // The instance lock is never held while the engine runs: the engine's context lock comes first
    // wherever both are taken (a body inside `transaction` that reads a model, `Insertion`), so the
    // opposite order here could deadlock.

    public func field<T: FieldValue>(_ name: String, as type: T.Type) -> T {
        field(name, column: -1, as: type)
    }

    /// The field `name`, which @Model's declaration puts at `column` among the model's columns (the
    /// engine checks that the layout has `name` there, and searches for it when not): an accessor reads
    /// its column by position, not by a search of the model's column names.
    public func field<T: FieldValue>(_ name: String, column: Int, as type: T.Type) -> T {
        if let raw = attachedObject.load(ordering: .acquiring) {
            // The backing's own +1 keeps the object alive for the call: no retain and release of it per read.
            return Unmanaged<ModelObject>.fromOpaque(raw)._withUnsafeGuaranteedRef { object in
                Self.decoded(name, as: T.self) { try object.value(of: name, column: column) }
            }
        }
        return Self.decoded(name, as: T.self) { try storedValue(name, column: column) }
    }

    public func setField<T: FieldValue>(_ name: String, _ newValue: T) {
        setField(name, column: -1, newValue)
    }

    /// Sets the field `name`, which @Model's declaration puts at `column` (see `field(_:column:as:)`).
    public func setField<T: FieldValue>(_ name: String, column: Int, _ newValue: T) {
        let value = newValue.fieldValue
        if let raw = attachedObject.load(ordering: .acquiring) {
            return Unmanaged<ModelObject>.fromOpaque(raw)._withUnsafeGuaranteedRef { object in
                writing(name) { try object.set(name, column: column, value) }
            }
        }
        writing(name) { try store(name, column: column, value) }
    }

    /// Whether the field or relationship `name` was given a value before the instance was inserted. The
    /// `init` accessor of an optional field without an initial value asks before it records a nil:
    /// Swift calls it with nil at the start of every initializer (a fetched row's too), and that nil is
    /// not one the app gave, while a nil after a value undoes the value. Only `init` accessors call it,
    /// which run before the instance is fully initialized, when no other code can reach its backing: no
    /// lock, which every fetched row would take once per such property.
    public func hasPendingValue(_ name: String) -> Bool {
        unattached?.hasValue(name) ?? false
    }

    private func pendingValue(_ name: String) -> Value? {
        unattached?.value(name)
    }

    private enum Either { case object(ModelObject), value(Value) }

    // MARK: Relationships

    public func toOne<T: PersistentModel>(_ name: String, as type: T.Type) -> T? {
        targets(name, as: type).first
    }

    public func setToOne<T: PersistentModel>(_ name: String, _ target: T?) {
        setLinks(name, target.map { [$0] } ?? [], many: false)
    }

    public func toMany<T: PersistentModel>(_ name: String, as type: T.Type) -> [T] {
        targets(name, as: type)
    }

    /// The related instances; none once the store was closed (`ModelContainer.close()`) when they were
    /// not read before: the objects they are cannot be read any more.
    private func targets<T: PersistentModel>(_ name: String, as type: T.Type) -> [T] {
        do { return try storedTargets(name, as: type) } catch StoreError.closed { return [] } catch {
            preconditionFailure("Vein: \(error)")
        }
    }

    public func setToMany<T: PersistentModel>(_ name: String, _ targets: [T]) {
        setLinks(name, targets, many: true)
    }

    /// The `init` accessor of a to-one relationship: `setToOne`, except that no target, with none given
    /// before, is not recorded. Swift calls it with nil at the start of every initializer (a fetched row's
    /// too), and that nil is not one the app gave: an upsert leaves a relationship never given targets
    /// as the store has it (an insert links nothing either way).
    public func initializeToOne<T: PersistentModel>(_ name: String, _ target: T?) {
        guard target != nil || hasPendingValue(name) else { return }
        setToOne(name, target)
    }

    /// The `init` accessor of a to-many relationship: `setToMany`, except that no targets, with none
    /// given before, is not recorded: an initial value `[]` (or Swift's nil for `[Pet]?`) leaves the
    /// relationship as never given, as `initializeToOne` does.
    public func initializeToMany<T: PersistentModel>(_ name: String, _ targets: [T]) {
        guard !targets.isEmpty || hasPendingValue(name) else { return }
        setToMany(name, targets)
    }

    /// Links to targets not in a context yet insert them into this object's context first (as inserting
    /// a model inserts what it points to).
    private func setLinks(_ name: String, _ targets: [any PersistentModel], many: Bool) {
        writing(name) { try storeTargets(name, targets, many: many) }
    }

    /// Runs a setter's write. An accessor cannot throw, and the app's code is not wrong to hold an instance
    /// another part of it deleted or a container it closed, so a write the context refuses is not made:
    /// to a deleted or detached object, the context's next save throws `ContextError.writeToDeleted`; any
    /// other the context refuses (a target deleted, detached or unsaved in another context: the engine's
    /// `danglingReference`; a value the field cannot store: `typeMismatch`) the next save throws as it is.
    /// One that needs the closed store is not made either, and the next save throws `StoreError.closed`
    /// (a write is never lost without a word). Any other failure
    /// (a store that cannot be read, a Codable value JSON cannot hold) stops the program.
    func writing(_ name: String, _ body: () throws -> Void) {
        do { try body() } catch ContextError.objectDeleted(let model, let id) {
            attached?.owner?.noteDeferredFailure(ContextError.writeToDeleted(model: model, id: id, field: name))
        } catch let error as ContextError {
            attached?.owner?.noteDeferredFailure(error)
        } catch StoreError.closed(let path) {
            attached?.owner?.noteDeferredFailure(StoreError.closed(path))
        } catch { preconditionFailure("Vein: \(error)") }
    }

    private static func link(_ object: ModelObject, _ name: String, _ targets: [any PersistentModel], many: Bool) throws {
        let context = try object.context
        for target in targets where target._$backing.object == nil { try Insertion.insert(target, into: context) }
        try object.set(name, Insertion.linkValue(targets.map { $0._$backing.object!.id }, toMany: many))
    }

    // MARK: Throwing access: what the accessors above stop the program on, thrown instead
    // (PersistentModel.value(of:), setValue(_:for:)); the accessors call these through `decoded` and `writing`.

    /// The field's value as the engine holds it: the pending value before the instance is in a
    /// context (nil when none was given), the context's after. Throws what the context throws.
    func storedValue(_ name: String, column: Int = -1) throws -> Value? {
        switch Self.instanceLock.withLock({ attached.map(Either.object) ?? pendingValue(name).map(Either.value) }) {
        case .object(let object)?: return try object.value(of: name, column: column)
        case .value(let pendingValue)?: return pendingValue
        case nil: return nil
        }
    }

    /// The objects a relationship points to (the pending ones before the instance is in a context),
    /// throwing what the context throws.
    func storedTargets<T: PersistentModel>(_ name: String, as type: T.Type) throws -> [T] {
        if let object = attached { return T.instances(try object.related(name)) }
        let (object, links) = Self.instanceLock.withLock { (attached, unattached?.links[name]) }
        guard let object else { return (links ?? []).compactMap { $0 as? T } }
        return T.instances(try object.related(name))
    }

    /// Sets a relationship, throwing what the context throws.
    func storeTargets(_ name: String, _ targets: [any PersistentModel], many: Bool) throws {
        let object: ModelObject? = Self.instanceLock.withLock {
            if attached == nil { unattachedValues.setLink(name, targets) }
            return attached
        }
        if let object { try Self.link(object, name, targets, many: many) }
    }

    /// Sets the field, throwing what the context throws.
    func store(_ name: String, column: Int = -1, _ value: Value) throws {
        let object: ModelObject? = Self.instanceLock.withLock {
            if attached == nil { unattachedValues.set(name, column: column, value) }
            return attached
        }
        try object?.set(name, column: column, value)
    }

    // MARK: Insertion (ModelContext.insert)
    // Called by `Insertion` (and upsert) with the instance lock held, so no accessor sees the instance
    // between the reading and the attaching (or, for upsert, between the taking and the putting back).

    /// The pending values, as the insert reads them (they stay until `attach` succeeds).
    var pendingValues: (values: [PendingValue], links: [String: [any PersistentModel]]) {
        (unattached?.values ?? [], unattached?.links ?? [:])
    }

    /// When the pending link `name` was assigned, relative to every other instance's (0: not recorded).
    func pendingLinkTime(_ name: String) -> UInt64 { unattached?.linkTime(name) ?? 0 }

    /// The pending values and links, taken out (upsert reads what a new instance was given, then puts
    /// them back with `restorePending`). Called with the engine's lock held, then the instance lock.
    func takePending() -> (values: [String: Value], links: [String: [any PersistentModel]]) {
        Self.instanceLock.withLock {
            unattached?.take() ?? ([:], [:])
        }
    }

    /// Puts back what `takePending` took, unless the instance was attached in between.
    func restorePending(_ values: [String: Value], _ links: [String: [any PersistentModel]]) {
        Self.instanceLock.withLock {
            guard attached == nil else { return }
            unattachedValues.restore(values, links)
        }
    }

    /// The field `name` as `coding` decodes what `read` gives. No value to read (nil: an instance not
    /// inserted that was never given one; null: a lazy field whose row is gone; `StoreError.closed`: a lazy
    /// field not read before the container closed) reads `AbsentFieldValue`'s. A stored value that does
    /// not fit (a damaged store), or a store that cannot be read, stops the program with the engine's message.
    static func decoded<C: FieldCoding>(_ name: String, _ coding: C.Type, _ read: () throws -> Value?) -> C.Declared {
        decoded(read, decode: C.decoded, absent: { AbsentFieldValue.value(of: name, C.self) })
    }

    /// `decoded(_:_:_:)` for a `FieldValue` type, which decodes itself. Every read of such a field comes
    /// here, so it names no coding: in code not specialized for the type, a `FieldValueCoding<T>` is a
    /// generic type looked up at run time, on every read. The coding is named only when there is no value
    /// to read.
    static func decoded<T: FieldValue>(_ name: String, as type: T.Type, _ read: () throws -> Value?) -> T {
        decoded(read, decode: T.init(fieldValue:), absent: { AbsentFieldValue.value(of: name, FieldValueCoding<T>.self) })
    }

    private static func decoded<T>(_ read: () throws -> Value?, decode: (Value) throws -> T, absent: () -> T) -> T {
        let stored: Value?
        do { stored = try read() } catch StoreError.closed { stored = nil } catch { preconditionFailure("Vein: \(error)") }
        if let stored {
            do { return try decode(stored) } catch {
                guard case .null = stored else { preconditionFailure("Vein: \(error)") }
            }
        }
        return absent()
    }
}

extension PersistentModel {
    /// The one instance over `object` in its context while anyone holds it; a new one otherwise.
    static func instance(_ object: ModelObject) -> Self {
        ModelBacking.instanceLock.withLock { instanceLocked(object, keeping: object.owner) }
    }

    /// `instance` of each (all of one context), under one taking of the instance lock (a fetch makes
    /// thousands), all keeping their context through one `ContextKeeper`.
    static func instances(_ objects: [ModelObject]) -> [Self] {
        // Made in place below, an empty array would write its count into the standard library's one
        // shared empty storage, which any thread may be reading: a data race the thread sanitizer reports.
        guard !objects.isEmpty else { return [] }
        let keeper = objects.first?.owner.map(ContextKeeper.init)
        return ModelBacking.instanceLock.withLock {
            // Written in place, not through `map`: code generic over `Self` is not specialized for an app's
            // model, and an unspecialized `map` cost as much a row as making the instance.
            [Self](unsafeUninitializedCapacity: objects.count) { instances, initialized in
                for object in objects {
                    (instances.baseAddress! + initialized).initialize(to: instanceLocked(object, keeping: keeper))
                    initialized += 1
                }
            }
        }
    }

    private static func instanceLocked(_ object: ModelObject, keeping keeper: AnyObject?) -> Self {
        if let existing = object.typedModel as? Self { return existing }
        let made = Self(_$object: object)
        made._$backing.keep(keeper)
        object.typedModel = made
        return made
    }
}
