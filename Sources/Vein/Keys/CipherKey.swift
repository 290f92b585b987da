import Foundation

/// The secret that opens an encrypted store.
///
/// A raw key is 32 random bytes handed to SQLCipher as `x'…'`, which skips the KDF (no cost at open);
/// a passphrase goes through SQLCipher's PBKDF2. Textual sources (key files, environment variables,
/// keyring items) hold either form: exactly 64 hex digits is a raw key, anything else a passphrase.
public enum CipherKey: Equatable, Sendable {
    case raw(Data)
    case passphrase(String)

    /// A fresh random 256-bit raw key.
    public static func random() throws -> CipherKey { .raw(try SecureRandom.bytes(32)) }

    /// Reads the textual form: 64 hex digits → raw key; otherwise the text is a passphrase.
    /// A single trailing newline (as editors and `echo` leave) is not part of the key.
    public init(text: String) throws {
        var text = text
        // "\r\n" is one Character (one grapheme cluster), so one removeLast() drops either ending.
        if text.hasSuffix("\r\n") || text.hasSuffix("\n") { text.removeLast() }
        if text.utf8.count == 64, let bytes = Hex.decode(text) {
            self = .raw(bytes)
        } else {
            guard !text.isEmpty else { throw KeyError.emptyKey }
            // SQLite reads the key as SQL text, which ends at a NUL.
            guard !text.contains("\0") else { throw KeyError.keyContainsNUL }
            self = .passphrase(text)
        }
    }

    /// The textual form, as written to key files and keyring items.
    public var text: String {
        switch self {
        case .raw(let bytes): return Hex.encode(bytes)
        case .passphrase(let p): return p
        }
    }

    /// The KEY of `ATTACH DATABASE … KEY ?`, bound as text: SQLCipher reads `x'<hex>'` as a raw key there
    /// too, anything else as a passphrase.
    var attachArgument: String {
        switch self {
        case .raw(let bytes): return "x'\(Hex.encode(bytes))'"
        case .passphrase(let p): return p
        }
    }

    /// The argument of `PRAGMA key`: `"x'<hex>'"` for a raw key, a quoted string for a passphrase.
    var pragmaArgument: String {
        switch self {
        case .raw(let bytes): return "\"x'\(Hex.encode(bytes))'\""
        case .passphrase(let p): return "'" + p.replacingOccurrences(of: "'", with: "''") + "'"
        }
    }

    /// "raw key" or "passphrase": what `vein info` shows, never the key itself.
    public var kindDescription: String {
        switch self {
        case .raw: return "raw 256-bit key"
        case .passphrase: return "passphrase (PBKDF2)"
        }
    }
}
