import Foundation

/// The article's "generate 10,000 random users", from a seed so that every run makes the same ones (the
/// walk-through's output is compared with a file).
struct RandomUsers: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    /// SplitMix64: small, fast, and the same on every platform, unlike the system generator.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private static let firstNames = ["Ada", "Alan", "Barbara", "Claude", "Donald", "Edsger", "Frances", "Grace",
                                     "John", "Katherine", "Leslie", "Margaret", "Niklaus", "Radia", "Tony"]
    private static let surnames = ["Allen", "Backus", "Dijkstra", "Hamilton", "Hoare", "Hopper", "Johnson",
                                   "Knuth", "Lamport", "Liskov", "Lovelace", "Perlman", "Shannon", "Turing", "Wirth"]

    mutating func user() -> User {
        var bytes = (UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0),
                     UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0))
        withUnsafeMutableBytes(of: &bytes) { buffer in
            for index in buffer.indices { buffer[index] = UInt8.random(in: .min ... .max, using: &self) }
        }
        bytes.6 = (bytes.6 & 0x0F) | 0x40  // version 4
        bytes.8 = (bytes.8 & 0x3F) | 0x80  // RFC 4122 variant
        return User(id: UUID(uuid: bytes),
                    firstName: Self.firstNames.randomElement(using: &self)!,
                    surname: Self.surnames.randomElement(using: &self)!,
                    age: Int.random(in: 18...99, using: &self))
    }
}
