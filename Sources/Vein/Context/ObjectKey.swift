/// The identity map's key for an object id.
///
/// Ids Vein makes are ULIDs; those are keyed by their 128 bits, so a lookup hashes two words and
/// compares two integers instead of hashing and `memcmp`-ing 26 characters, and a fetch can find a
/// known row without building its id string. Any other id (an imported one, say) is keyed by its text.
/// Invariant: a canonical ULID string and its 128 bits always give the same key, and no two distinct
/// id strings give the same key (lowercase text is not canonical and keeps its text).
struct ObjectKey: Hashable {
    /// One or the other, not both: an enum is a word smaller than a ULID beside an optional string, and
    /// every object keeps its key.
    private enum Form: Hashable {
        case ulid(ULID)
        case text(String)
    }
    private let form: Form

    init(_ id: String) {
        var id = id
        if let ulid = id.withUTF8({ ULID(canonicalUTF8: $0) }) {
            form = .ulid(ulid)
        } else {
            form = .text(id)
        }
    }

    init(_ ulid: ULID) {
        form = .ulid(ulid)
    }

    /// The key of an id given as bytes, or nil when they are not a canonical ULID (then build the
    /// string and use `init(_:)`).
    init?(canonicalUTF8 bytes: UnsafeBufferPointer<UInt8>) {
        guard let ulid = ULID(canonicalUTF8: bytes) else { return nil }
        form = .ulid(ulid)
    }

    /// The id as text: a ULID's canonical 26 characters, made now, or the text the id was given as.
    var text: String {
        switch form {
        case .ulid(let ulid): return ulid.description
        case .text(let text): return text
        }
    }

    /// Whether `self` sorts before `other` in the order of their text, for ULIDs (`ULID`'s order, which
    /// is its canonical text's); ULIDs before other ids. A save hands its id sets to SQLite in this order:
    /// rows then go into each b-tree at its end, not at random places.
    func precedes(_ other: ObjectKey) -> Bool {
        switch (form, other.form) {
        case (.ulid(let a), .ulid(let b)): return a < b
        case (.ulid, .text): return true
        case (.text, .ulid): return false
        case (.text(let a), .text(let b)): return a < b
        }
    }

    /// The id's text as UTF-8, lent to `body`: a ULID's made on the stack, without a string.
    func withText<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        switch form {
        case .ulid(let ulid): return try ulid.withCanonicalUTF8(body)
        case .text(var text): return try text.withUTF8(body)
        }
    }

    func hash(into hasher: inout Hasher) {
        switch form {
        case .ulid(let ulid): hasher.combine(ulid.low ^ ulid.high.byteSwapped)
        case .text(let text): hasher.combine(text)
        }
    }

    /// What `Dictionary` and the identity map's table (`KeyedObjects`) ask for. A ULID's low 80 bits are
    /// random (or a counter within a millisecond), so a multiplicative mix of them (`MultiplicativeHash`)
    /// is as good a bucket index as SipHash, for a fraction of the cost: seeding a `Hasher` was the single
    /// largest item of a 200,000-row fetch. Text ids take the standard path.
    func _rawHashValue(seed: Int) -> Int {
        switch form {
        case .ulid(let ulid): return MultiplicativeHash.bucket(of: ulid.low ^ ulid.high.byteSwapped, seed: seed)
        case .text(let text):
            var hasher = Hasher()
            hasher.combine(text)
            return hasher.finalize()
        }
    }

    /// `objects` in the order of their ids (`precedes`). The ULIDs are sorted as pairs of integers
    /// beside their objects, so a sort of many objects compares words, not enum payloads.
    static func inIDOrder(_ objects: some Collection<ModelObject>) -> [ModelObject] {
        var ulids: [(high: UInt64, low: UInt64, object: ModelObject)] = []
        var texts: [(text: String, object: ModelObject)] = []
        ulids.reserveCapacity(objects.count)
        for object in objects {
            switch object.key.form {
            case .ulid(let ulid): ulids.append((ulid.high, ulid.low, object))
            case .text(let text): texts.append((text, object))
            }
        }
        ulids.sort { $0.high != $1.high ? $0.high < $1.high : $0.low < $1.low }
        texts.sort { $0.text < $1.text }
        return ulids.map(\.object) + texts.map(\.object)
    }
}
