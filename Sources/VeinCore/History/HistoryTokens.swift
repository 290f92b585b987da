import Foundation

/// The history tokens a predicate names: the values it captured (`#Predicate { $0.token > token }` holds
/// `token` as a constant of its expression tree), found by walking the tree's stored values. A token the
/// predicate computes rather than captures is not found, and cannot be checked for expiry.
enum HistoryTokens {
    /// Deep enough for any predicate a person writes; a cycle cannot occur in a value tree, but a limit
    /// keeps a pathological one cheap.
    static let depthLimit = 64

    static func named(in value: Any, depth: Int = 0) -> [DefaultHistoryToken] {
        if let token = value as? DefaultHistoryToken { return [token] }
        guard depth < depthLimit else { return [] }
        return Mirror(reflecting: value).children.flatMap { named(in: $0.value, depth: depth + 1) }
    }
}
