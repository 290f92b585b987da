/// How far long work (a migration, an import, an export) has got, for whoever shows it: the CLI draws a
/// bar on a terminal; the engine only counts.
public struct WorkProgress: Equatable, Sendable {
    public let done: Int
    /// 0 when the total is not known in advance.
    public let total: Int
    public let label: String

    public init(done: Int, total: Int, label: String) {
        self.done = done
        self.total = total
        self.label = label
    }
}

public typealias ProgressHandler = @Sendable (WorkProgress) -> Void
