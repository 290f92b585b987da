import Foundation

/// A committed transaction of a store's history (SwiftData's `HistoryTransaction`). Vein's is
/// `DefaultHistoryTransaction`.
public protocol HistoryTransaction: Hashable, Identifiable, Sendable {
    associatedtype TokenType: Comparable, Hashable, Sendable
    var token: TokenType { get }
    var author: String? { get }
    var timestamp: Date { get }
    var changes: [HistoryChange] { get }
    var storeIdentifier: String { get }
}

/// Where a transaction stands in a store's history (SwiftData's `DefaultHistoryToken`): later
/// transactions have greater tokens. Codable, so an app keeps the last one it processed (in a file, in
/// `UserDefaults`) and asks for what came after it when it starts again.
public struct DefaultHistoryToken: Comparable, Hashable, Codable, Sendable, Identifiable, CustomStringConvertible {
    /// The store file (replica) whose history this is.
    public let storeIdentifier: String
    /// The transaction's token in that store, as `vein history` prints it.
    public let value: Int64

    public var id: Int64 { value }

    public init(storeIdentifier: String, value: Int64) {
        self.storeIdentifier = storeIdentifier
        self.value = value
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.value < rhs.value }

    public var description: String { String(value) }
}

/// A transaction as the engine's change log records it (docs/history.md).
public struct DefaultHistoryTransaction: HistoryTransaction {
    public let token: DefaultHistoryToken
    /// Who committed it: `ModelContext.author` when it saved, the `vein` command that wrote it, or nil.
    public let author: String?
    public let timestamp: Date
    public let changes: [HistoryChange]
    public let storeIdentifier: String
    public var transactionIdentifier: Int64 { token.value }
    public var id: Int64 { token.value }

    public static func == (a: Self, b: Self) -> Bool { a.token == b.token && a.storeIdentifier == b.storeIdentifier }
    public func hash(into hasher: inout Hasher) { hasher.combine(token) }
}
