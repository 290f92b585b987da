import Foundation
import Vein

/// What a property reads when there is no value to read, on a healthy store: a lazy field never read whose
/// row is gone (deleted and saved, here or by another context) or whose container was closed, or an
/// optional field of an instance not inserted yet that was never given one. A property cannot throw, and the app did
/// nothing wrong (another part of it deleted the row, or closed the container at exit), so instead of
/// stopping the program it reads: nil for an optional, or else the empty value of its stored type ("",
/// 0, false, empty data, the start of 1970, the all-zero UUID, the enum's first case, an empty JSON list
/// or object). `value(of:)` throws instead (`ModelFieldError.noValue`, `StoreError.closed`).
///
/// A type with no empty value (a Codable struct with a required member, an enum that is not
/// `CaseIterable`) has nothing to read instead, so a container's contexts read such a field with every
/// row, lazy or not (ReadWithEveryRow.swift): its row going away no longer leaves it without a value.
/// An instance not inserted has one too: an initializer that leaves a required property unassigned
/// does not compile (AssignedMarker, in the macros).
enum AbsentFieldValue {
    /// The value `coding` gives for "nothing to read"; stops the program for a type that has no empty
    /// value, which only a context made over an engine context alone meets (it knows no Swift types, so
    /// it reads such a field lazily, and its row can go away before the read).
    static func value<C: FieldCoding>(of name: String, _ coding: C.Type) -> C.Declared {
        guard let empty = emptyValue(C.self) else {
            preconditionFailure("Vein: '\(name)' has no value to read and \(C.Declared.self) has no empty value: read stored "
                + "instances through a ModelContainer's contexts (they read such a field with its row), or declare it optional")
        }
        return empty
    }

    /// Nil for an optional, the empty value of a required field's type, or nothing when it has none.
    static func emptyValue<C: FieldCoding>(_ coding: C.Type) -> C.Declared? {
        if let none = try? C.decoded(.null) { return none }
        for candidate in C.fieldKind.type.emptyValues(enumValues: C.fieldKind.enumValues) {
            if let empty = try? C.decoded(candidate) { return empty }
        }
        return nil
    }
}
