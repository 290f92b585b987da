/// A dictionary key for an object's identity, as `ObjectIdentifier`, hashed by `MultiplicativeHash`
/// instead of SipHash: a context keys every pending insert by it, and seeding a `Hasher` per lookup cost
/// more than the rest of the lookup. An address is not chosen by anyone outside the process, so the
/// flooding SipHash guards against does not arise.
struct ObjectAddress: Hashable {
    private let address: UInt

    init(_ object: AnyObject) {
        address = UInt(bitPattern: ObjectIdentifier(object))
    }

    func hash(into hasher: inout Hasher) { hasher.combine(address) }

    func _rawHashValue(seed: Int) -> Int { MultiplicativeHash.bucket(of: UInt64(address), seed: seed) }
}

/// A bucket index for bits that already vary well in their high part (random or counter bits of an id,
/// an object's address whose low bits are zero by alignment): one multiply by the golden ratio and a
/// shift mix them into the low bits `Dictionary` uses. Only for keys no one outside the process chooses.
enum MultiplicativeHash {
    static func bucket(of bits: UInt64, seed: Int) -> Int {
        var x = (bits ^ UInt64(UInt(bitPattern: seed))) &* 0x9E37_79B9_7F4A_7C15
        x ^= x >> 29
        return Int(truncatingIfNeeded: x)
    }
}
