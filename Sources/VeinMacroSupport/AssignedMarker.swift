import SwiftSyntax

/// The stored marker of each persisted `var` (VeinCore's `_Assigned`, empty), which its `init` accessor
/// initializes: Swift's definite initialization tracks the marker as the property's storage, so an
/// initializer must assign every persisted property before it returns or uses `self`, as SwiftData's
/// markers make it. A property with an initial value is assigned it first, as a stored one; an optional
/// is nil-initialized (Swift calls its `init` accessor with nil), so `var note: String?` needs no
/// assignment. `init(_$object:)` initializes the markers of the others itself: a fetched row's values are
/// the row's.
enum AssignedMarker {
    static func name(of property: PropertyInfo) -> String { "_$assigned_\(property.name)" }

    /// `nonisolated(unsafe)`: a model is Sendable, which refuses a mutable stored property; the marker
    /// holds nothing, and only `init` accessors write it.
    static func declaration(of property: PropertyInfo) -> DeclSyntax {
        "nonisolated(unsafe) private var \(raw: name(of: property)): VeinCore._Assigned"
    }

    /// The `init` accessor: initializes the marker, then gives the backing the value with `write`. An
    /// optional field without an initial value skips the nil Swift initializes it with (see
    /// `ModelBacking.hasPendingValue`), unless it undoes a value given before; a relationship's `write`
    /// does the same itself (`ModelBacking.initializeToMany`).
    static func initAccessor(of property: PropertyInfo, writing write: String) -> AccessorDeclSyntax {
        let marker = name(of: property)
        let nilInitialized = property.relationship == nil && property.initializer == nil
            && FieldTypeSyntax.wrappedOfOptional(property.type) != nil
        let skip = nilInitialized ? "\n    if initialValue == nil, !_$backing.hasPendingValue(\"\(property.name)\") { return }" : ""
        return """
            @storageRestrictions(initializes: \(raw: marker), accesses: _$backing)
            init(initialValue) {
                \(raw: marker) = VeinCore._Assigned()\(raw: skip)
                \(raw: write)
            }
            """
    }

    /// The statements of `init(_$object:)` that initialize the markers Swift does not: those of the
    /// properties with neither an initial value nor an optional type.
    static func initializations(_ properties: [PropertyInfo]) -> String {
        properties.filter { !$0.isLet && $0.initializer == nil && FieldTypeSyntax.wrappedOfOptional($0.type) == nil }
            .map { "\n    \(name(of: $0)) = VeinCore._Assigned()" }.joined()
    }
}
