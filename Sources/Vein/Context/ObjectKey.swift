/// The identity map's key for an object id.
///
/// Ids Vein makes are ULIDs; those are keyed by their 128 bits, so a lookup hashes two words and
/// compares two integers instead of hashing and `memcmp`-ing 26 characters, and a fetch can find a
/// known row without building its id string. Any other id (an imported one, say) is keyed by its text.
/// Invariant: a canonical ULID string and its 128 bits always give the same key, and no two distinct
/// id strings give the same key (lowercase text is not canonical and keeps its text).
struct ObjectKey: Hashable {
    private let ulid: ULID
    private let text: String?

    init(_ id: String) {
        var id = id
        if let ulid = id.withUTF8({ ULID(canonicalUTF8: $0) }) {
            self.ulid = ulid
            text = nil
        } else {
            ulid = ULID(high: 0, low: 0)
            text = id
        }
    }

    init(_ ulid: ULID) {
        self.ulid = ulid
        text = nil
    }

    /// The key of an id given as bytes, or nil when they are not a canonical ULID (then build the
    /// string and use `init(_:)`).
    init?(canonicalUTF8 bytes: UnsafeBufferPointer<UInt8>) {
        guard let ulid = ULID(canonicalUTF8: bytes) else { return nil }
        self.ulid = ulid
        text = nil
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(ulid.low ^ ulid.high.byteSwapped)
        if let text { hasher.combine(text) }
    }

    /// What `Dictionary` asks for. A ULID's low 80 bits are random (or a counter within a millisecond),
    /// so a multiplicative mix of them (`MultiplicativeHash`) is as good a bucket index as SipHash, for a fraction of the cost:
    /// seeding a `Hasher` was the single largest item of a 200,000-row fetch. Text ids take the
    /// standard path.
    func _rawHashValue(seed: Int) -> Int {
        guard text == nil else {
            var hasher = Hasher()
            hash(into: &hasher)
            return hasher.finalize()
        }
        return MultiplicativeHash.bucket(of: ulid.low ^ ulid.high.byteSwapped, seed: seed)
    }
}
