import Foundation

/// A moment in a change log as a person names it (docs/history.md#tokens-and-times): a token, as history
/// lists print them, or a time in ISO 8601 with `Z` or an offset and an optional fraction.
package enum HistoryPoint: Equatable, Sendable {
    case token(Int64)
    case time(Date)

    /// Nil when `text` is neither a whole number nor an ISO 8601 time with a date and a time of day.
    package init?(parsing text: String) {
        if let token = Int64(text), token >= 0 {
            self = .token(token)
        } else if text.contains("T"), let seconds = ISODate.parse(text) {
            self = .time(Date(timeIntervalSince1970: seconds))
        } else {
            return nil
        }
    }

    /// Whether the commit with `token` at `clock` is at or before this point.
    package func includes(token: Int64, clock: Int64) -> Bool {
        switch self {
        case .token(let last): return token <= last
        case .time(let date): return clock <= HybridClock.upperBound(of: date)
        }
    }

    package var description: String {
        switch self {
        case .token(let token): return "token \(token)"
        case .time(let date): return ISODate.format(date.timeIntervalSince1970)
        }
    }
}
