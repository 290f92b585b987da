import Foundation

/// The secret that opens an encrypted store.
///
/// A raw key is 32 random bytes handed to SQLCipher as `x'…'`, which skips the KDF (no cost at open);
/// a passphrase goes through SQLCipher's PBKDF2. Textual sources (key files, environment variables,
/// keyring items) hold either form: exactly 64 hex digits (optionally as `x'…'`) is a raw key; hex of
/// another length is taken for a mistyped raw key and refused; anything else is a passphrase.
///
/// The secret lives in memory Vein owns (`SecretBytes`), zeroed when the last copy of the key is gone, and
/// reaches SQLCipher and the keyring through buffers that are zeroed after use. A key prints as its kind
/// only.
public struct CipherKey: Equatable, Sendable, CustomStringConvertible, DatabaseKey {
    public enum Kind: Sendable { case raw, passphrase }
    public let kind: Kind
    /// A raw key's 32 bytes, or a passphrase's UTF-8.
    let secret: SecretBytes

    init(kind: Kind, secret: SecretBytes) {
        self.kind = kind
        self.secret = secret
    }

    public static func raw(_ bytes: Data) -> CipherKey {
        KeyMemory.keepOutOfCoreDumps()
        return CipherKey(kind: .raw, secret: SecretBytes(copying: bytes))
    }

    public static func passphrase(_ text: String) -> CipherKey {
        KeyMemory.keepOutOfCoreDumps()
        return CipherKey(kind: .passphrase, secret: SecretBytes(copying: text.utf8))
    }

    /// A fresh random 256-bit raw key, made in place (it is never in a buffer that is not wiped).
    public static func random() throws -> CipherKey {
        KeyMemory.keepOutOfCoreDumps()
        return CipherKey(kind: .raw, secret: SecretBytes(count: 32) { SecureRandom.fill($0) })
    }

    public static func == (a: CipherKey, b: CipherKey) -> Bool { a.kind == b.kind && a.secret == b.secret }

    public var description: String { "CipherKey(\(kindDescription))" }

    /// The shortest passphrase `create` and `rotate` take without `--weak-passphrase` (docs/keys.md).
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
        if allHex, digits.utf8.count == 64, var bytes = Hex.decode(digits) {
            defer { KeyMemory.wipe(&bytes) }
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
        guard kind == .passphrase, !allowWeak else { return }
        let characters = secret.withBytes { String(decoding: $0, as: UTF8.self).count }
        if characters < Self.minimumPassphraseLength { throw KeyError.weakPassphrase(characters: characters) }
    }

    /// The textual form, as written to key files and keyring items (64 hex digits, or the passphrase).
    /// A String cannot be wiped: Vein itself uses `withText`.
    public var text: String { withText { String(decoding: $0.dropLast(), as: UTF8.self) } }

    /// Calls `body` with the textual form followed by `terminator` (a C string's NUL, a key file's
    /// newline), in a buffer zeroed afterwards.
    func withText<R>(terminatedBy terminator: UInt8 = 0, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let count = kind == .raw ? 2 * secret.count : secret.count
        let buffer = SecretBytes(count: count + 1) { out in
            secret.withBytes { key in
                switch kind {
                case .raw: Hex.encode(key, into: out)
                case .passphrase: out.copyMemory(from: key)
                }
            }
            out[count] = terminator
        }
        return try buffer.withBytes(body)
    }

    /// Calls `body` with the key as `sqlite3_key` takes it (`x'<hex>'` for a raw key, which skips the KDF;
    /// the passphrase's UTF-8 otherwise), in a buffer zeroed afterwards.
    package func withSQLCipherKey<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        // Before the key reaches SQLCipher, which keeps a derived copy in its own memory.
        KeyMemory.keepOutOfCoreDumps()
        guard kind == .raw else { return try secret.withBytes(body) }
        let buffer = SecretBytes(count: 2 * secret.count + 3) { out in
            out[0] = UInt8(ascii: "x"); out[1] = UInt8(ascii: "'"); out[out.count - 1] = UInt8(ascii: "'")
            secret.withBytes { Hex.encode($0, into: UnsafeMutableRawBufferPointer(rebasing: out[2..<(out.count - 1)])) }
        }
        return try buffer.withBytes(body)
    }

    /// The KEY of `ATTACH DATABASE … KEY ?`, bound as text: SQLCipher reads `x'<hex>'` as a raw key there
    /// too, anything else as a passphrase.
    var attachArgument: String {
        switch kind {
        case .raw: return "x'\(text)'"
        case .passphrase: return text
        }
    }

    /// The argument of `PRAGMA key`: `"x'<hex>'"` for a raw key, a quoted string for a passphrase.
    var pragmaArgument: String {
        switch kind {
        case .raw: return "\"x'\(text)'\""
        case .passphrase: return "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
        }
    }

    /// "raw key" or "passphrase": what `vein info` shows, never the key itself.
    public var kindDescription: String {
        switch kind {
        case .raw: return "raw 256-bit key"
        case .passphrase: return "passphrase (PBKDF2)"
        }
    }
}

/// Bytes of a secret in memory of their own, zeroed (so that the optimizer cannot skip it) when freed.
/// Immutable once made, so safe to share between threads.
final class SecretBytes: Equatable, @unchecked Sendable {
    private let storage: UnsafeMutableRawBufferPointer

    init(count: Int, fill: (UnsafeMutableRawBufferPointer) -> Void) {
        storage = .allocate(byteCount: count, alignment: 1)
        storage.initializeMemory(as: UInt8.self, repeating: 0)
        fill(storage)
    }

    convenience init<Bytes: Collection<UInt8>>(copying bytes: Bytes) {
        self.init(count: bytes.count) { $0.copyBytes(from: bytes) }
    }

    deinit {
        KeyMemory.wipe(storage)
        storage.deallocate()
    }

    var count: Int { storage.count }

    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(storage))
    }

    static func == (a: SecretBytes, b: SecretBytes) -> Bool {
        a.count == b.count && (a.count == 0 || memcmp(a.storage.baseAddress!, b.storage.baseAddress!, a.count) == 0)
    }
}
