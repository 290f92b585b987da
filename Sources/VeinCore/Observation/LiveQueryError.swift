/// Why a live query's refresh failed, beyond the engine's own errors.
public enum LiveQueryError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The store's path names another file than the one the live query's context reads (the store was
    /// replaced by a rename, as a key rotation or a restore does, or removed): the context would go on
    /// reading the old file, never seeing a write to the new one.
    case storeReplaced(String)

    public var description: String {
        switch self {
        case .storeReplaced(let path):
            return "\(path) was replaced or removed since this live query's context opened it; "
                + "open the store again and make a new live query"
        }
    }
}
