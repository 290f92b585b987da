import Foundation

/// The secret that opens an encrypted store.
///
/// A raw key is 32 random bytes handed to SQLCipher as `x'…'`, which skips the KDF (no cost at open);
/// a passphrase goes through SQLCipher's PBKDF2. Textual sources (key files, environment variables,
/// keyring items) hold either form: exactly 64 hex digits (optionally as `x'…'`) is a raw key; hex of
/// another length is taken for a mistyped raw key and refused; anything else is a passphrase.
public enum CipherKey: Equatable, Sendable {
    case raw(Data)
    case passphrase(String)

    /// A fresh random 256-bit raw key.
    public static func random() throws -> CipherKey {
        KeyMemory.keepOutOfCoreDumps()
        return .raw(try SecureRandom.bytes(32))
    }

    /// The shortest passphrase `create` and `rotate` take without `--weak-passphrase` (SPEC §6).
    public static let minimumPassphraseLength = 12

    /// Hex of these lengths (other than 64) is a raw key with a digit lost or doubled, or pasted twice,
    /// far more likely than a passphrase; taking it as one would make a store no raw key opens.
    static let mistypedRawKeyLengths = 32...128

    /// Reads the textual form: 64 hex digits → raw key; otherwise the text is a passphrase.
    /// Surrounding whitespace (the newline editors and `echo` leave, a pasted space) is not part of the key.
    public init(text: String) throws {
        KeyMemory.keepOutOfCoreDumps()
        let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw KeyError.emptyKey }
        let wrapped = (text.hasPrefix("x'") || text.hasPrefix("X'")) && text.hasSuffix("'") && text.utf8.count >= 3
        let digits = wrapped ? String(text.dropFirst(2).dropLast()) : text
        let allHex = !digits.isEmpty && digits.utf8.allSatisfy { Hex.nibble($0) != nil }
        if allHex, digits.utf8.count == 64, let bytes = Hex.decode(digits) {
            self = .raw(bytes)
        } else if wrapped || (allHex && Self.mistypedRawKeyLengths.contains(digits.utf8.count)) {
            throw KeyError.mistypedRawKey(hexDigits: allHex ? digits.utf8.count : nil)
        } else {
            // SQLite reads the key as SQL text, which ends at a NUL.
            guard !text.contains("\0") else { throw KeyError.keyContainsNUL }
            self = .passphrase(text)
        }
    }

    /// A key about to protect a new store (create, rotate): a passphrase shorter than
    /// `minimumPassphraseLength` characters only when the user accepted it.
    public func checkStrengthForNewStore(allowWeak: Bool) throws {
        if case .passphrase(let text) = self, !allowWeak, text.count < Self.minimumPassphraseLength {
            throw KeyError.weakPassphrase(characters: text.count)
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
