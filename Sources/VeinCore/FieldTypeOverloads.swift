import Vein

// The table of what a declared property type is, read by the type checker. @Model sees only the syntax
// of `var owner: Person?` or `var address: Address?`, so it passes the declared type to these overloaded
// entry points and overload resolution decides:
// - a `FieldValue` (the field types of docs/store-format.md, `[Codable]`, `[String: Codable]`, the `…Persistable` protocols): itself;
// - a `PersistentModel` as `T?`, `[T]` or `[T]?`: a relationship (a model that is also Codable is a
//   relationship, as in SwiftData);
// - a `RawRepresentable & Codable` enum with a String or Int raw value: its raw value;
// - any other `Codable` type: JSON.
// The last two are disfavored, so that a type that is also a `FieldValue` (String is Codable too) or a
// model keeps its own overload; among them the more specific (an enum, an optional) wins.

extension ModelBacking {
    @_disfavoredOverload
    public func field<T: Codable>(_ name: String, column: Int, as type: T.Type) -> T {
        field(name, column: column, coding: JSONCoding<T>.self)
    }

    @_disfavoredOverload
    public func field<T: Codable>(_ name: String, column: Int, as type: T?.Type) -> T? {
        field(name, column: column, coding: OptionalCoding<JSONCoding<T>>.self)
    }

    @_disfavoredOverload
    public func field<T: RawRepresentable & Codable>(_ name: String, column: Int, as type: T.Type) -> T where T.RawValue: RawFieldValue {
        field(name, column: column, coding: RawValueCoding<T>.self)
    }

    @_disfavoredOverload
    public func field<T: RawRepresentable & Codable>(_ name: String, column: Int, as type: T?.Type) -> T? where T.RawValue: RawFieldValue {
        field(name, column: column, coding: OptionalCoding<RawValueCoding<T>>.self)
    }

    public func field<T: PersistentModel>(_ name: String, column: Int, as type: T?.Type) -> T? { toOne(name, as: T.self) }
    public func field<T: PersistentModel>(_ name: String, column: Int, as type: [T].Type) -> [T] { toMany(name, as: T.self) }
    public func field<T: PersistentModel>(_ name: String, column: Int, as type: [T]?.Type) -> [T]? { toMany(name, as: T.self) }

    @_disfavoredOverload
    public func setField<T: Codable>(_ name: String, column: Int, _ newValue: T) {
        setField(name, column: column, newValue, coding: JSONCoding<T>.self)
    }

    @_disfavoredOverload
    public func setField<T: Codable>(_ name: String, column: Int, _ newValue: T?) {
        setField(name, column: column, newValue, coding: OptionalCoding<JSONCoding<T>>.self)
    }

    @_disfavoredOverload
    public func setField<T: RawRepresentable & Codable>(_ name: String, column: Int, _ newValue: T) where T.RawValue: RawFieldValue {
        setField(name, column: column, newValue, coding: RawValueCoding<T>.self)
    }

    @_disfavoredOverload
    public func setField<T: RawRepresentable & Codable>(_ name: String, column: Int, _ newValue: T?) where T.RawValue: RawFieldValue {
        setField(name, column: column, newValue, coding: OptionalCoding<RawValueCoding<T>>.self)
    }

    public func setField<T: PersistentModel>(_ name: String, column: Int, _ newValue: T?) { setToOne(name, newValue) }
    public func setField<T: PersistentModel>(_ name: String, column: Int, _ newValue: [T]) { setToMany(name, newValue) }
    public func setField<T: PersistentModel>(_ name: String, column: Int, _ newValue: [T]?) { setToMany(name, newValue ?? []) }

    /// The `init` accessor of a property @Model could not tell is a relationship (one written without
    /// `@Relationship`, which only its type makes one): true when it is one, given to `initializeToOne` or
    /// `initializeToMany`, so that its initial value (`= []`, Swift's nil) is not recorded as the app's
    /// assignment, as for a written `@Relationship`; false for a field, which the accessor then sets.
    public func initializesRelationship<T: PersistentModel>(_ name: String, _ target: T?) -> Bool {
        initializeToOne(name, target)
        return true
    }

    public func initializesRelationship<T: PersistentModel>(_ name: String, _ targets: [T]) -> Bool {
        initializeToMany(name, targets)
        return true
    }

    public func initializesRelationship<T: PersistentModel>(_ name: String, _ targets: [T]?) -> Bool {
        initializeToMany(name, targets ?? [])
        return true
    }

    @inlinable @_disfavoredOverload
    public func initializesRelationship<T>(_ name: String, _ value: T) -> Bool { false }

    /// A field whose type has no `FieldValue` conformance, through its coding (a little slower than the
    /// `FieldValue` accessors, which reach the engine's object without the instance lock).
    func field<C: FieldCoding>(_ name: String, column: Int, coding: C.Type) -> C.Declared {
        Self.decoded(name, C.self) { try storedValue(name, column: column) }
    }

    /// Sets the field through its coding; a write the context refuses is `writing`'s.
    func setField<C: FieldCoding>(_ name: String, column: Int, _ newValue: C.Declared, coding: C.Type) {
        writing(name) { try store(name, column: column, try C.encoded(newValue)) }
    }
}

extension PropertyDescription {
    public static func field<T: FieldValue>(_ name: String, _ type: T.Type, lazy: Bool = false, unique: Bool = false, preserveValueOnDeletion: Bool = false,
                                            originalName: String? = nil, default initial: T? = nil) -> PropertyDescription {
        field(name, FieldValueCoding<T>.self, lazy: lazy, unique: unique, preserved: preserveValueOnDeletion, originalName: originalName, default: initial)
    }

    @_disfavoredOverload
    public static func field<T: Codable>(_ name: String, _ type: T.Type, lazy: Bool = false, unique: Bool = false, preserveValueOnDeletion: Bool = false,
                                         originalName: String? = nil, default initial: T? = nil) -> PropertyDescription {
        field(name, JSONCoding<T>.self, lazy: lazy, unique: unique, preserved: preserveValueOnDeletion, originalName: originalName, default: initial)
    }

    @_disfavoredOverload
    public static func field<T: Codable>(_ name: String, _ type: T?.Type, lazy: Bool = false, unique: Bool = false, preserveValueOnDeletion: Bool = false,
                                         originalName: String? = nil, default initial: T?? = nil) -> PropertyDescription {
        field(name, OptionalCoding<JSONCoding<T>>.self, lazy: lazy, unique: unique, preserved: preserveValueOnDeletion, originalName: originalName, default: initial)
    }

    @_disfavoredOverload
    public static func field<T: RawRepresentable & Codable>(_ name: String, _ type: T.Type, lazy: Bool = false, unique: Bool = false, preserveValueOnDeletion: Bool = false,
                                                            originalName: String? = nil, default initial: T? = nil)
        -> PropertyDescription where T.RawValue: RawFieldValue {
        field(name, RawValueCoding<T>.self, lazy: lazy, unique: unique, preserved: preserveValueOnDeletion, originalName: originalName, default: initial)
    }

    @_disfavoredOverload
    public static func field<T: RawRepresentable & Codable>(_ name: String, _ type: T?.Type, lazy: Bool = false, unique: Bool = false, preserveValueOnDeletion: Bool = false,
                                                            originalName: String? = nil, default initial: T?? = nil)
        -> PropertyDescription where T.RawValue: RawFieldValue {
        field(name, OptionalCoding<RawValueCoding<T>>.self, lazy: lazy, unique: unique, preserved: preserveValueOnDeletion, originalName: originalName, default: initial)
    }

    /// A relationship declared without `@Relationship` (SwiftData infers it from the type): no inverse
    /// named on this side, the default delete rule. Its initial value (`= []`) is the empty list it starts with anyway.
    public static func field<T: PersistentModel>(_ name: String, _ type: T?.Type, originalName: String? = nil,
                                                 default initial: T?? = nil) -> PropertyDescription {
        toOne(name, T.self, originalName: originalName)
    }

    public static func field<T: PersistentModel>(_ name: String, _ type: [T].Type, originalName: String? = nil,
                                                 default initial: [T]? = nil) -> PropertyDescription {
        toMany(name, T.self, originalName: originalName)
    }

    public static func field<T: PersistentModel>(_ name: String, _ type: [T]?.Type, originalName: String? = nil,
                                                 default initial: [T]?? = nil) -> PropertyDescription {
        toMany(name, T.self, originalName: originalName)
    }

    /// Any other type: the error names what a field's type may be (not Swift's "no exact matches").
    @available(*, unavailable, message: "a field's type must be Codable (a struct, an enum, a collection of Codable values) or a @Model class (a relationship)")
    public static func field<T>(_ name: String, _ type: T.Type, lazy: Bool = false, unique: Bool = false, preserveValueOnDeletion: Bool = false,
                                originalName: String? = nil, default initial: T? = nil) -> PropertyDescription {
        fatalError()
    }

    static func field<C: FieldCoding>(_ name: String, _ coding: C.Type, lazy: Bool, unique: Bool, preserved: Bool, originalName: String?,
                                      default initial: C.Declared?) -> PropertyDescription {
        let kind = C.fieldKind
        var schema = FieldSchema(name: name, type: kind.type, isOptional: kind.isOptional, isLazy: lazy, isUnique: unique,
                                 defaultValue: initial.flatMap { try? C.encoded($0) }.flatMap { ManifestDefault.json($0, kind: kind) },
                                 enumValues: kind.enumValues, renamedFrom: originalName)
        schema.preservesValueOnDeletion = preserved
        return .field(schema, hasEmptyValue: AbsentFieldValue.emptyValue(C.self) != nil)
    }
}
