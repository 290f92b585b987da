/// The stored marker @Model gives each persisted `var` (`_$assigned_title`), which the property's `init`
/// accessor initializes. A persisted property is computed (its value lives in the backing), and Swift's
/// definite initialization checks only stored properties: through the marker, an initializer that leaves a
/// required property unassigned fails to compile with Swift's own "return from initializer without
/// initializing all stored properties", as it would for a plain class, instead of making an instance
/// with nothing to read. Empty, so an instance is no larger for it. Apps do not use it.
public struct _Assigned: Sendable {
    @inlinable public init() {}
}
