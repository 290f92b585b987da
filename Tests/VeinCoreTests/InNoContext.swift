import VeinCore

extension PersistentModel {
    /// Whether the instance was never inserted (or its insert failed): its values are still pending.
    var isInNoContext: Bool { _$backing.object == nil }
}
