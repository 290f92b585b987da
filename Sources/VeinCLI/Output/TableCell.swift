import Foundation
import Vein

/// One value of a result as a table or the `line` format shows it, kept as what it is until it is written,
/// because each kind is shortened its own way when a terminal has no room for it: text is cut and marked
/// "…", data is written from its first bytes only, an id is never shortened (it is the value people copy),
/// and a list of ids keeps whole ids and gives the rest as a count. Where nothing is shortened (a file, a
/// pipe) every value is written whole.
enum TableCell: Equatable {
    case null
    /// Stored text: control and format characters escaped.
    case text(String)
    /// A row's id or a to-one relationship's target.
    case id(String)
    /// A to-many relationship's targets, in order.
    case ids([String])
    /// Raw SQL's blob, as SQLite writes one: x'0a1b…'.
    case blob(Data)
    /// A number, a Bool, a date, JSON: as JSON writes it.
    case literal(String)

    /// Whether the cell keeps its whole text in any width.
    var isWhole: Bool {
        if case .id = self { return true }
        return false
    }

    /// The text, within `width` display columns when given (an id whatever the width).
    func text(within width: Int?) -> String {
        switch self {
        case .null: return width.map { DisplayWidth.fitted("nil", width: $0) } ?? "nil"
        case .text(let s), .literal(let s):
            return width.map { DisplayWidth.fitted(s, width: $0, shown: \.escapingControlCharacters) } ?? s.escapingControlCharacters
        case .id(let id): return id.escapingControlCharacters
        case .ids(let ids): return Self.list(ids, width: width)
        case .blob(let data):
            guard let width else { return "x'" + Hex.encode(data) + "'" }
            // Two hex digits a byte: the bytes that can show, one more so the cut is seen, never the rest.
            let shown = data.prefix(width / 2 + 1)
            return DisplayWidth.fitted("x'" + Hex.encode(shown) + (shown.count < data.count ? "…" : "'"), width: width)
        }
    }

    /// "[A, B, C]"; in a narrow column as many whole ids as fit, "[A, … 4 more]", or only their number, "[5 ids]".
    static func list(_ ids: [String], width: Int?) -> String {
        let shown = ids.map(\.escapingControlCharacters)
        guard let width, !ids.isEmpty else { return "[" + shown.joined(separator: ", ") + "]" }
        var kept = 0, used = 1  // "["
        while kept < shown.count {
            let next = used + (kept == 0 ? 0 : 2) + DisplayWidth.of(shown[kept])
            let tail = kept + 1 == shown.count ? "]" : ", … \(shown.count - kept - 1) more]"
            guard next + DisplayWidth.of(tail) <= width else { break }
            used = next
            kept += 1
        }
        if kept == shown.count { return "[" + shown.joined(separator: ", ") + "]" }
        if kept > 0 { return "[" + shown.prefix(kept).joined(separator: ", ") + ", … \(shown.count - kept) more]" }
        return DisplayWidth.fitted("[" + Phrase.count(ids.count, "id") + "]", width: width)
    }
}
