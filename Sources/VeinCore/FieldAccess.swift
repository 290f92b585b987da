import Vein

/// The throwing way to read and write a field or relationship. A model's properties cannot throw (SwiftData's shape), so
/// they stop the program when the store cannot answer; these report the same failure as an error: the
/// engine's (`ContextError.objectDeleted` for a write to a deleted object, `StoreError.closed` for a lazy
/// field not read before the container closed, `DamagedValueError` for a cell another tool wrote with a
/// value not of its type) or `ModelFieldError`.
///
///     let title = try post.value(of: \.title)
///     try post.setValue("New title", for: \.title)
///     let attachments = try post.value(of: \.attachments)
extension PersistentModel {
    /// The value of the persisted field `keyPath` names, read through the object's context.
    public func value<V: FieldValue>(of keyPath: KeyPath<Self, V>) throws -> V {
        try storedValue(of: keyPath, FieldValueCoding<V>.self)
    }

    /// Sets the persisted field `keyPath` names, through the object's context (pending until it is in one).
    public func setValue<V: FieldValue>(_ value: V, for keyPath: ReferenceWritableKeyPath<Self, V>) throws {
        try store(value, for: keyPath, FieldValueCoding<V>.self)
    }

    // A field of any other Codable type (a struct, a `Set`, `URL`, an enum with payloads: JSON) or of a
    // String or Int enum (its raw value), as the model's own accessors store them (FieldTypeOverloads.swift).

    @_disfavoredOverload
    public func value<V: Codable>(of keyPath: KeyPath<Self, V>) throws -> V { try storedValue(of: keyPath, JSONCoding<V>.self) }

    @_disfavoredOverload
    public func value<V: Codable>(of keyPath: KeyPath<Self, V?>) throws -> V? {
        try storedValue(of: keyPath, OptionalCoding<JSONCoding<V>>.self)
    }

    @_disfavoredOverload
    public func value<V: RawRepresentable & Codable>(of keyPath: KeyPath<Self, V>) throws -> V where V.RawValue: RawFieldValue {
        try storedValue(of: keyPath, RawValueCoding<V>.self)
    }

    @_disfavoredOverload
    public func value<V: RawRepresentable & Codable>(of keyPath: KeyPath<Self, V?>) throws -> V? where V.RawValue: RawFieldValue {
        try storedValue(of: keyPath, OptionalCoding<RawValueCoding<V>>.self)
    }

    @_disfavoredOverload
    public func setValue<V: Codable>(_ value: V, for keyPath: ReferenceWritableKeyPath<Self, V>) throws {
        try store(value, for: keyPath, JSONCoding<V>.self)
    }

    @_disfavoredOverload
    public func setValue<V: Codable>(_ value: V?, for keyPath: ReferenceWritableKeyPath<Self, V?>) throws {
        try store(value, for: keyPath, OptionalCoding<JSONCoding<V>>.self)
    }

    @_disfavoredOverload
    public func setValue<V: RawRepresentable & Codable>(_ value: V, for keyPath: ReferenceWritableKeyPath<Self, V>) throws
        where V.RawValue: RawFieldValue {
        try store(value, for: keyPath, RawValueCoding<V>.self)
    }

    @_disfavoredOverload
    public func setValue<V: RawRepresentable & Codable>(_ value: V?, for keyPath: ReferenceWritableKeyPath<Self, V?>) throws
        where V.RawValue: RawFieldValue {
        try store(value, for: keyPath, OptionalCoding<RawValueCoding<V>>.self)
    }

    private func storedValue<C: FieldCoding>(of keyPath: PartialKeyPath<Self>, _ coding: C.Type) throws -> C.Declared {
        let name = try Self.fieldName(keyPath)
        // A `let` reaches the backing at insert; an instance not inserted yet holds its value itself.
        if _$backing.object == nil { ModelBacking.instanceLock.withLock { _$pendLetValues() } }
        guard let stored = try _$backing.storedValue(name) else {
            throw ModelFieldError.noValue(model: Self.modelName, field: name)
        }
        do {
            return try C.decoded(stored)
        } catch {
            throw ModelFieldError.doesNotFit(model: Self.modelName, field: name, id: _$backing.object?.id,
                                             swiftType: "\(C.Declared.self)", problem: "\(error)")
        }
    }

    private func store<C: FieldCoding>(_ value: C.Declared, for keyPath: PartialKeyPath<Self>, _ coding: C.Type) throws {
        let name = try Self.fieldName(keyPath)
        let encoded: Value
        do {
            encoded = try C.encoded(value)
        } catch {
            let problem = if case EncodingError.invalidValue(let value, _) = error { "\(value) has no JSON form" } else { "\(error)" }
            throw ModelFieldError.cannotStore(model: Self.modelName, field: name, swiftType: "\(C.Declared.self)", problem: problem)
        }
        try _$backing.store(name, encoded)
    }

    /// The object a to-one relationship points to, read through the object's context.
    public func value<T: PersistentModel>(of keyPath: KeyPath<Self, T?>) throws -> T? {
        try _$backing.storedTargets(try Self.fieldName(keyPath), as: T.self).first
    }

    /// The objects a to-many relationship points to, in order, read through the object's context.
    public func value<T: PersistentModel>(of keyPath: KeyPath<Self, [T]>) throws -> [T] {
        try _$backing.storedTargets(try Self.fieldName(keyPath), as: T.self)
    }

    /// Points a to-one relationship at `target` (inserting it into the object's context when it is in none).
    public func setValue<T: PersistentModel>(_ target: T?, for keyPath: ReferenceWritableKeyPath<Self, T?>) throws {
        try _$backing.storeTargets(try Self.fieldName(keyPath), target.map { [$0] } ?? [], many: false)
    }

    /// Sets a to-many relationship's members, in order (inserting those in no context).
    public func setValue<T: PersistentModel>(_ targets: [T], for keyPath: ReferenceWritableKeyPath<Self, [T]>) throws {
        try _$backing.storeTargets(try Self.fieldName(keyPath), targets, many: true)
    }

    private static func fieldName(_ keyPath: PartialKeyPath<Self>) throws -> String {
        guard let name = propertyName(for: keyPath) else { throw ModelFieldError.notPersisted(model: modelName) }
        return name
    }
}

/// Why `value(of:)` or `setValue(_:for:)` could not read or write a field (beside the engine's errors).
public enum ModelFieldError: Error, Equatable, CustomStringConvertible {
    /// The key path names a property that is not persisted (a computed or `@Transient` one).
    case notPersisted(model: String)
    /// The field of an object in no context yet was read before it was given a value.
    case noValue(model: String, field: String)
    /// The stored value does not fit the property's Swift type (a `json` field's Codable type, say).
    case doesNotFit(model: String, field: String, id: String?, swiftType: String, problem: String)
    /// The value has no stored form (a `json` value holding a non-finite Double, which JSON cannot write).
    case cannotStore(model: String, field: String, swiftType: String, problem: String)

    public var description: String {
        switch self {
        case .notPersisted(let model): return "the key path names no persisted field of \(model)"
        case .noValue(let model, let field): return "\(model).\(field) was read before it was given a value"
        case .doesNotFit(let model, let field, let id, let swiftType, let problem):
            return "\(model).\(field)" + (id.map { " of \($0)" } ?? "") + " holds a value that does not fit \(swiftType): \(problem)"
        case .cannotStore(let model, let field, let swiftType, let problem):
            return "\(model).\(field) cannot store this \(swiftType): \(problem)"
        }
    }
}
