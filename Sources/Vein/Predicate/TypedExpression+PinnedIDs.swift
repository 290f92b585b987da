extension TypedExpression {
    /// The ids a condition can select at most, when it says so itself: `id == #id("…")` or `[#id("…"),
    /// …].contains(id)`, alone or first under `&&` (the rest is then evaluated only on those ids, so no
    /// other row can trap in it, as in Swift); nil when any id could match. An id never changes, so this
    /// holds for a context's unsaved objects as for stored rows: a fetch looks those ids up instead of
    /// testing every pending object (an update or a delete by id in a REPL session costs the same however
    /// many changes are pending).
    package var pinnedIDs: Set<String>? {
        switch self {
        case .compare("==", let a, let b):
            if a.isOwnID, case .literal(.string(let id), _) = b { return [id] }
            if b.isOwnID, case .literal(.string(let id), _) = a { return [id] }
            return nil
        case .inList(let items, let needle) where needle.isOwnID:
            var ids = Set<String>()
            for item in items {
                guard case .literal(.string(let id), _) = item else { return nil }
                ids.insert(id)
            }
            return ids
        case .and(let a, _):
            return a.pinnedIDs
        default:
            return nil
        }
    }

    /// The tested object's own id (not a hop's, not a closure parameter's).
    private var isOwnID: Bool {
        guard case .column(let path, _) = self else { return false }
        return path.hop == nil && path.scope == 0 && path.column == StoreFormat.current.keyColumn && path.storedType == .id
    }
}
