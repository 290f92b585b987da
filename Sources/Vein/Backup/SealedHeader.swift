import Foundation

/// The clear header of a sealed file (docs/backup.md#sealed-files), all of it authenticated as the
/// AES-256-GCM associated data: which chain the file belongs to and where, so a file that is missing,
/// reordered, replayed, altered or from another store is refused before any of its payload is trusted.
/// It says nothing of the data beyond sizes, counts and times: the last token the file covers (how many
/// commits the log has made) and that commit's clock time (what the file's modification time tells too),
/// so a restore picks its files without decrypting others; models, ids and values are in the payload.
///
///     magic "VEINSEAL" · version (1) · kind (1) · 2 zero bytes · generation (u32) · sequence (u64)
///     store id (26) · replica id (26) · key id (8) · previous file's digest (32) · last token (u64)
///     last clock (u64) · nonce (12) · payload length (u64)
///
/// Integers are big-endian. The payload's ciphertext follows, then the 16-byte tag.
struct SealedHeader: Equatable {
    enum Kind: UInt8 {
        case snapshot = 1
        case segment = 2
        /// A sync key's predecessor, sealed under the key (docs/sync.md#rotating-the-sync-key).
        case key = 3
    }

    static let magic = Array("VEINSEAL".utf8)
    static let version: UInt8 = 1
    static let idLength = 26
    static let length = 8 + 1 + 1 + 2 + 4 + 8 + 2 * idLength + 8 + 32 + 8 + 8 + AESGCM.nonceLength + 8

    var kind: Kind
    var generation: UInt32
    /// 0 for a snapshot; its segments count from 1.
    var sequence: UInt64
    var storeID: String
    var replicaID: String
    var keyID: [UInt8]
    /// The SHA-256 of the whole file before this one in the chain: for a segment, the one before it or its
    /// generation's snapshot; for a snapshot, the last file of the generation before it (zeros for the first).
    var previousDigest: [UInt8]
    /// The newest transaction of the store's change log the file covers (a snapshot: the last one committed
    /// when it was taken), and its hybrid clock time.
    var lastToken: Int64
    var lastClock: Int64
    var nonce: [UInt8]
    var payloadLength: UInt64

    var encoded: [UInt8] {
        var out = Self.magic
        out += [Self.version, kind.rawValue, 0, 0]
        out += Self.bigEndian(UInt64(generation), 4) + Self.bigEndian(sequence, 8)
        out += Self.padded(storeID) + Self.padded(replicaID)
        out += keyID + previousDigest + Self.bigEndian(UInt64(bitPattern: lastToken), 8) + Self.bigEndian(UInt64(bitPattern: lastClock), 8)
        out += nonce + Self.bigEndian(payloadLength, 8)
        assert(out.count == Self.length)
        return out
    }

    enum Problem: Error, Equatable { case notSealed, version(UInt8), malformed }

    init(kind: Kind, generation: UInt32, sequence: UInt64, storeID: String, replicaID: String, keyID: [UInt8],
         previousDigest: [UInt8], lastToken: Int64, lastClock: Int64, nonce: [UInt8] = [], payloadLength: UInt64 = 0) {
        self.kind = kind
        self.generation = generation
        self.sequence = sequence
        self.storeID = storeID
        self.replicaID = replicaID
        self.keyID = keyID
        self.previousDigest = previousDigest
        self.lastToken = lastToken
        self.lastClock = lastClock
        self.nonce = nonce
        self.payloadLength = payloadLength
    }

    init(decoding bytes: [UInt8]) throws(Problem) {
        guard bytes.count >= Self.length, Array(bytes[0..<8]) == Self.magic else { throw .notSealed }
        guard bytes[8] == Self.version else { throw .version(bytes[8]) }
        guard let kind = Kind(rawValue: bytes[9]), bytes[10] == 0, bytes[11] == 0 else { throw .malformed }
        var offset = 12
        func take(_ n: Int) -> [UInt8] { defer { offset += n }; return Array(bytes[offset..<offset + n]) }
        func integer(_ n: Int) -> UInt64 { take(n).reduce(0) { $0 << 8 | UInt64($1) } }
        func identifier() throws(Problem) -> String {
            let raw = take(Self.idLength)
            guard raw.allSatisfy({ $0 >= 0x30 && $0 < 0x7f }) else { throw .malformed }
            return String(decoding: raw, as: UTF8.self)
        }
        self.kind = kind
        generation = UInt32(integer(4))
        sequence = integer(8)
        storeID = try identifier()
        replicaID = try identifier()
        keyID = take(8)
        previousDigest = take(32)
        lastToken = Int64(bitPattern: integer(8))
        lastClock = Int64(bitPattern: integer(8))
        nonce = take(AESGCM.nonceLength)
        payloadLength = integer(8)
    }

    private static func bigEndian(_ value: UInt64, _ count: Int) -> [UInt8] {
        (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    /// Ids are ULIDs (26 characters); anything shorter is padded with `0`s so the header keeps its length.
    private static func padded(_ id: String) -> [UInt8] {
        let bytes = Array(id.utf8.prefix(idLength))
        return bytes + [UInt8](repeating: UInt8(ascii: "0"), count: idLength - bytes.count)
    }
}
