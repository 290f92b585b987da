import Foundation

/// Writes JSON text: compact (canonical when the tree's objects are in canonical order) or indented.
///
/// Doubles use Swift's shortest representation that reads back to the same value; strings escape only
/// what JSON requires, so the same tree always gives the same bytes.
public enum JSONWriter {
    public static func string(_ value: JSONValue, pretty: Bool = false) -> String {
        var out = ""
        write(value, into: &out, pretty: pretty, indent: 0)
        return out
    }

    static func write(_ value: JSONValue, into out: inout String, pretty: Bool, indent: Int) {
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d): out += formatDouble(d)
        case .string(let s): writeString(s, into: &out)
        case .array(let items):
            guard !items.isEmpty else { out += "[]"; return }
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                if pretty { newline(&out, indent + 1) }
                write(item, into: &out, pretty: pretty, indent: indent + 1)
            }
            if pretty { newline(&out, indent) }
            out += "]"
        case .object(let object):
            guard !object.isEmpty else { out += "{}"; return }
            out += "{"
            for (i, member) in object.members.enumerated() {
                if i > 0 { out += "," }
                if pretty { newline(&out, indent + 1) }
                writeString(member.key, into: &out)
                out += pretty ? ": " : ":"
                write(member.value, into: &out, pretty: pretty, indent: indent + 1)
            }
            if pretty { newline(&out, indent) }
            out += "}"
        }
    }

    private static func newline(_ out: inout String, _ indent: Int) {
        out += "\n"
        out += String(repeating: "  ", count: indent)
    }

    /// Shortest round-trip form. JSON has no infinities or NaN; those become null (callers that must
    /// not lose them validate first).
    package static func formatDouble(_ d: Double) -> String {
        guard d.isFinite else { return "null" }
        return "\(d)"
    }

    package static func writeString(_ s: String, into out: inout String) {
        var bytes: [UInt8] = []
        var s = s
        s.withUTF8 { writeString(utf8: $0, into: &bytes) }
        out += String(decoding: bytes, as: UTF8.self)
    }

    /// The one escaping rule of every JSON string Vein writes: `"` `\` and the control characters escaped
    /// (the short forms where JSON has them, else `\u00xx`), everything else as its UTF-8 bytes. Runs of
    /// bytes that need no escape are copied at once: an export writes millions of strings.
    static func writeString<Bytes: RandomAccessCollection>(utf8 bytes: Bytes, into out: inout [UInt8]) where Bytes.Element == UInt8 {
        out.append(UInt8(ascii: "\""))
        var runStart = bytes.startIndex
        var i = bytes.startIndex
        while i != bytes.endIndex {
            let c = bytes[i]
            if c >= 0x20 && c != UInt8(ascii: "\"") && c != UInt8(ascii: "\\") {
                i = bytes.index(after: i)
                continue
            }
            out.append(contentsOf: bytes[runStart..<i])
            switch c {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0x08: out += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
            case 0x0C: out += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
            default:
                let hex = Array("0123456789abcdef".utf8)
                out += Array("\\u00".utf8) + [hex[Int(c >> 4)], hex[Int(c & 15)]]
            }
            i = bytes.index(after: i)
            runStart = i
        }
        out.append(contentsOf: bytes[runStart..<i])
        out.append(UInt8(ascii: "\""))
    }
}
