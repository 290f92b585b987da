import Foundation
@testable import Vein

/// Writes random predicates over `OracleRow` twice: as Vein expression text and as Swift source for
/// Foundation (`#Predicate`, or a plain closure for `hasPrefix`, `hasSuffix`, `lowercased()`,
/// `uppercased()`, which `#Predicate` lacks on Linux). Swift text names the row `§`, replaced by `r` when
/// written out (both forms name their parameter, so a closure inside may use `$0`). Deterministic for a seed.
struct OracleGenerator {
    struct Piece {
        var vein: String
        var swift: String
        /// Needs a plain closure.
        var plain = false
        /// Uses `contains` on strings, which only `#Predicate` evaluates as docs/expressions.md means it (Characters);
        /// Foundation's plain `String.contains` matches inside a Character. Never in a plain closure.
        var usesContains = false
    }

    private var rng: SplitMix64
    /// Swift literals as typed constants (type, initial value), in first-use order: a `#Predicate` captures
    /// them as values of a known type. Written inline, literals make the macro's expansion slow to
    /// type-check (or not type-check at all: `-1` becomes `UnaryMinus`, which `??` and arrays refuse).
    private(set) var constants: [(type: String, value: String)] = []

    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    private mutating func constant(_ type: String, _ value: String) -> String {
        if let index = constants.firstIndex(where: { $0.type == type && $0.value == value }) { return Self.constantName(index) }
        constants.append((type, value))
        return Self.constantName(constants.count - 1)
    }

    static func constantName(_ index: Int) -> String { "oracle\(index)" }

    private mutating func pick<T>(_ list: [T]) -> T { list.randomElement(using: &rng)! }
    private mutating func chance(_ n: Int) -> Bool { Int.random(in: 0..<n, using: &rng) == 0 }

    // MARK: Literals

    private mutating func string() -> Piece {
        var pool = OracleData.strings
        pool += ["Caf", "fe\u{301}", "e\u{301}", "\u{1F3FD}", "\n", "\r", "\0b", "a\0", "\u{200D}👩", "b\0", "日本"]
        let text = pick(pool)
        let raw = chance(2)
        var vein = "\"", swift = "\""
        for scalar in text.unicodeScalars {
            let plainASCII = scalar.value >= 0x20 && scalar.value < 0x7F && scalar != "\"" && scalar != "\\"
            swift += plainASCII ? String(scalar) : "\\u{\(String(scalar.value, radix: 16))}"
            if plainASCII || (raw && scalar.value >= 0xA0) {
                vein += String(scalar)  // typed raw: the lexer reads scalars, so a leading combining mark stays in the string
            } else if scalar == "\0" && raw {
                vein += "\\0"
            } else {
                vein += "\\u{\(String(scalar.value, radix: 16))}"
            }
        }
        return Piece(vein: vein + "\"", swift: constant("String", swift + "\""))
    }

    private mutating func intValue() -> Int { pick(OracleData.ints + [Int.min + 2, 5, -3]) }

    private mutating func int() -> Piece {
        let v = intValue()
        return Piece(vein: "\(v)", swift: constant("Int", "\(v)"))
    }

    private mutating func small(nonZero: Bool = false) -> Piece {
        let v = pick(OracleData.smallInts.filter { !nonZero || $0 != 0 })
        return Piece(vein: "\(v)", swift: constant("Int", "\(v)"))
    }

    private mutating func double() -> Piece {
        let v = pick(OracleData.doubles + [-0.0, 2, -1, 1e308, 0.25])
        // Swift warns that the literal 5e-324 "underflows", though it is exactly that Double.
        let swift = v.magnitude == .leastNonzeroMagnitude ? (v < 0 ? "-" : "") + "Double.leastNonzeroMagnitude" : "\(v)"
        return Piece(vein: "\(v)", swift: constant("Double", swift))
    }

    private mutating func date() -> Piece {
        var v = pick(OracleData.dates)
        if chance(3) { v = ISODate.round(v + pick([-0.000001, 0.000001, -1, 86_400])) }
        if !ISODate.representable.contains(v) { v = 0 }
        return Piece(vein: "#date(\"\(ISODate.format(v))\")", swift: constant("Date", "Date(timeIntervalSince1970: \(v))"))
    }

    private mutating func comparison() -> String { pick(["==", "!=", "<", "<=", ">", ">="]) }
    private mutating func equality() -> String { pick(["==", "!="]) }

    // MARK: Predicates

    mutating func predicate(depth: Int = 0) -> Piece {
        if depth < 2, chance(3) {
            let a = predicate(depth: depth + 1), b = predicate(depth: depth + 1)
            let plain = a.plain || b.plain, usesContains = a.usesContains || b.usesContains
            if plain && usesContains { return a }
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: return Piece(vein: "(\(a.vein) && \(b.vein))", swift: "(\(a.swift) && \(b.swift))", plain: plain, usesContains: usesContains)
            case 1: return Piece(vein: "(\(a.vein) || \(b.vein))", swift: "(\(a.swift) || \(b.swift))", plain: plain, usesContains: usesContains)
            default: return Piece(vein: "!(\(a.vein))", swift: "!(\(a.swift))", plain: a.plain, usesContains: a.usesContains)
            }
        }
        return leaf()
    }

    private mutating func leaf() -> Piece {
        func both(_ text: String) -> Piece { Piece(vein: text.replacingOccurrences(of: "§.", with: ""), swift: text) }
        switch Int.random(in: 0..<39, using: &rng) {
        case 36, 37, 38:
            // Closures over the to-many `kids`, the outer row's names beside the member's.
            switch Int.random(in: 0..<7, using: &rng) {
            case 0:
                let c = small(), op = comparison()
                return Piece(vein: "kids.contains { $0.v \(op) \(c.vein) }", swift: "§.kids.contains { $0.v \(op) \(c.swift) }")
            case 1:
                let lit = string(), op = equality()
                return Piece(vein: "kids.contains(where: { q in q.t \(op) \(lit.vein) })", swift: "§.kids.contains(where: { q in q.t \(op) \(lit.swift) })")
            case 2:
                let c = small(), op = comparison()
                return Piece(vein: "kids.allSatisfy { $0.v \(op) \(c.vein) }", swift: "§.kids.allSatisfy { $0.v \(op) \(c.swift) }")
            case 3:
                let lit = string(), op = equality()
                return Piece(vein: "kids.allSatisfy { $0.t \(op) \(lit.vein) }", swift: "§.kids.allSatisfy { $0.t \(op) \(lit.swift) }")
            case 4:
                let c = small(), op = comparison(), count = Int.random(in: 0...2, using: &rng)
                return Piece(vein: "kids.filter { $0.v \(op) \(c.vein) }.count == \(count)", swift: "§.kids.filter { $0.v \(op) \(c.swift) }.count == \(count)")
            case 5:
                return both(pick(["§.kids.contains { q in q.v == §.k }", "§.kids.allSatisfy { q in q.t?.isEmpty == false }",
                                  "§.kids.contains { q in q.t == §.so }", "§.kids.isEmpty", "§.kids.count \(comparison()) 2"]))
            default:
                let c = small()
                return Piece(vein: "kids.allSatisfy { $0.t != nil && $0.v > \(c.vein) }", swift: "§.kids.allSatisfy { $0.t != nil && $0.v > \(c.swift) }")
            }
        case 30, 31:
            // Ranges on every Comparable type; bounds that do not form one trap in Swift and are left out.
            let closed = chance(2), op = closed ? "..." : "..<"
            switch Int.random(in: 0..<5, using: &rng) {
            case 0:
                // Mostly bounds in order: the rest trap on every row, and only show that Vein traps too.
                var bounds = [intValue(), intValue()]
                if !chance(4) { bounds.sort() }
                let pieces = bounds.map { Piece(vein: "\($0)", swift: constant("Int", "\($0)")) }
                return range(pieces[0], pieces[1], op, Piece(vein: "i", swift: "§.i"))
            case 1:
                let fallback = double()
                return range(double(), double(), op, chance(2) ? Piece(vein: "d", swift: "§.d")
                                                                : Piece(vein: "(dopt ?? \(fallback.vein))", swift: "(§.dopt ?? \(fallback.swift))"))
            case 2: return range(string(), string(), op, Piece(vein: "s", swift: "§.s"))
            case 3: return range(date(), date(), op, Piece(vein: "dt", swift: "§.dt"))
            default:
                let a = small(), b = small(), c = small(), arith = pick(["+", "-", "*"])
                return Piece(vein: "(\(a.vein)\(spaced(op, b.vein))\(b.vein)).contains(k \(arith) \(c.vein))",
                             swift: "(\(a.swift)\(op)\(b.swift)).contains(§.k \(arith) \(c.swift))")
            }
        case 32, 33:
            // Optional chains: nil where the chain meets nil.
            switch Int.random(in: 0..<5, using: &rng) {
            case 0: return both("§.so?.count \(equality()) \(pick(["nil", "0", "1", "2"]))")
            case 1: return both("§.so?.isEmpty \(equality()) \(pick(["nil", "true", "false"]))")
            case 2:
                let lit = string(), op = equality()
                return Piece(vein: "so?.contains(\(lit.vein)) \(op) true", swift: "§.so?.contains(\(lit.swift)) \(op) true", usesContains: true)
            case 3:
                let a = small(), b = small(), op = comparison()
                return Piece(vein: "(so?.count ?? \(a.vein)) \(op) \(b.vein)", swift: "(§.so?.count ?? \(a.swift)) \(op) \(b.swift)")
            default:
                return both("(§.so?.isEmpty ?? \(pick(["true", "false"]))) \(equality()) \(pick(["true", "false"]))")
            }
        case 0, 1:
            let lit = string(), op = comparison()
            return Piece(vein: "s \(op) \(lit.vein)", swift: "§.s \(op) \(lit.swift)")
        case 2:
            if chance(2) { return both("§.so \(equality()) nil") }
            let lit = string(), op = equality()
            return Piece(vein: "so \(op) \(lit.vein)", swift: "§.so \(op) \(lit.swift)")
        case 3:
            let a = string(), b = string(), op = comparison()
            return Piece(vein: "(so ?? \(a.vein)) \(op) \(b.vein)", swift: "(§.so ?? \(a.swift)) \(op) \(b.swift)")
        case 4, 5:
            let lit = string()
            return Piece(vein: "s.contains(\(lit.vein))", swift: "§.s.contains(\(lit.swift))", usesContains: true)
        case 6:
            let a = string(), b = string()
            return Piece(vein: "(so ?? \(a.vein)).contains(\(b.vein))", swift: "(§.so ?? \(a.swift)).contains(\(b.swift))", usesContains: true)
        case 7:
            let lit = string()
            return Piece(vein: "s.starts(with: \(lit.vein))", swift: "§.s.starts(with: \(lit.swift))")
        case 8:
            let lit = string(), name = pick(["hasPrefix", "hasSuffix"])
            return Piece(vein: "s.\(name)(\(lit.vein))", swift: "§.s.\(name)(\(lit.swift))", plain: true)
        case 9:
            let lit = string(), name = pick(["lowercased", "uppercased"]), op = pick(["==", "<"])
            return Piece(vein: "s.\(name)() \(op) \(lit.vein)", swift: "§.s.\(name)() \(op) \(lit.swift)", plain: true)
        case 10:
            return both("§.s.count \(comparison()) \(Int.random(in: 0...4, using: &rng))")
        case 11:
            return both(chance(2) ? "§.s.isEmpty" : "!§.s.isEmpty")
        case 12:
            let a = string(), b = string()
            let list = constant("[String]", "[\(a.swift), \(b.swift)]")
            return Piece(vein: "[\(a.vein), \(b.vein)].contains(s)", swift: "\(list).contains(§.s)")
        case 13, 14:
            let lit = int(), op = comparison()
            return Piece(vein: "i \(op) \(lit.vein)", swift: "§.i \(op) \(lit.swift)")
        case 15:
            if chance(2) { return both("§.io \(equality()) nil") }
            let lit = int(), op = equality()
            return Piece(vein: "io \(op) \(lit.vein)", swift: "§.io \(op) \(lit.swift)")
        case 16:
            let a = int(), b = int(), op = comparison()
            return Piece(vein: "(io ?? \(a.vein)) \(op) \(b.vein)", swift: "(§.io ?? \(a.swift)) \(op) \(b.swift)")
        case 17:
            let op = pick(["+", "-", "*", "/", "%"])
            let a = op == "/" || op == "%" ? small(nonZero: true) : small(), b = small(), cmp = comparison()
            return Piece(vein: "k \(op) \(a.vein) \(cmp) \(b.vein)", swift: "§.k \(op) \(a.swift) \(cmp) \(b.swift)")
        case 18:
            let lit = small(), op = comparison()
            return Piece(vein: "-k \(op) \(lit.vein)", swift: "-§.k \(op) \(lit.swift)")
        case 19:
            let a = intValue(), b = intValue()
            return Piece(vein: "[\(a), \(b)].contains(i)", swift: "\(constant("[Int]", "[\(a), \(b)]")).contains(§.i)")
        case 20, 21:
            let lit = double(), op = comparison()
            return Piece(vein: "d \(op) \(lit.vein)", swift: "§.d \(op) \(lit.swift)")
        case 22:
            let a = double(), b = double(), op = comparison()
            return Piece(vein: "(dopt ?? \(a.vein)) \(op) \(b.vein)", swift: "(§.dopt ?? \(a.swift)) \(op) \(b.swift)")
        case 23:
            let op = pick(["+", "-", "*", "/"]), a = double(), b = double(), cmp = comparison()
            return Piece(vein: "d \(op) \(a.vein) \(cmp) \(b.vein)", swift: "§.d \(op) \(a.swift) \(cmp) \(b.swift)")
        case 24:
            let lit = double(), op = comparison()
            return Piece(vein: "-d \(op) \(lit.vein)", swift: "-§.d \(op) \(lit.swift)")
        case 25:
            return both(pick(["§.b", "!§.b", "§.b == true", "§.b != false"]))
        case 26:
            return both("§.bo \(equality()) \(pick(["nil", "true", "false"]))")
        case 27, 28:
            let lit = date(), op = comparison()
            return Piece(vein: "dt \(op) \(lit.vein)", swift: "§.dt \(op) \(lit.swift)")
        default:
            if chance(3) { return both("§.dto \(equality()) nil") }
            let a = date(), b = date(), op = comparison()
            return Piece(vein: "(dto ?? \(a.vein)) \(op) \(b.vein)", swift: "(§.dto ?? \(a.swift)) \(op) \(b.swift)")
        }
    }

    /// `(a...b).contains(value)` or with `..<`.
    private func range(_ a: Piece, _ b: Piece, _ op: String, _ value: Piece) -> Piece {
        Piece(vein: "(\(a.vein)\(spaced(op, b.vein))\(b.vein)).contains(\(value.vein))", swift: "(\(a.swift)\(op)\(b.swift)).contains(\(value.swift))")
    }

    /// A range operator as Vein's text writes it: spaced before a negative bound, which Swift's lexer would
    /// otherwise read as one operator (`1...-3` is `...-`).
    private func spaced(_ op: String, _ upper: String) -> String { upper.hasPrefix("-") ? " \(op) " : op }

    // MARK: Swift source

    /// `cases` as a Swift file defining `OraclePredicates.cases` (and its date constants).
    static func source(_ cases: [Piece], constants: [(type: String, value: String)], seed: UInt64, name: String = "OraclePredicates") -> String {
        var out = """
            // Generated by FoundationDifferentialTests (seed \(seed), \(cases.count) predicates); do not edit.
            // Regenerate: VEIN_DIFF_REGENERATE=1 swift test --filter FoundationDifferentialTests
            import Foundation

            """
        for (index, constant) in constants.enumerated() {
            out += "private let \(constantName(index)): \(constant.type) = \(constant.value)\n"
        }
        out += "\nenum \(name) {\n    static let seed: UInt64 = \(seed)\n    static let cases: [OracleCase] = [\n"
        for piece in cases {
            let vein = piece.vein.unicodeScalars.map { scalar -> String in
                scalar.value >= 0x20 && scalar.value < 0x7F && scalar != "\"" && scalar != "\\" ? String(scalar)
                    : "\\u{\(String(scalar.value, radix: 16))}"
            }.joined()
            if piece.plain {
                out += "        OracleCase(\"\(vein)\", closure: { r in \(piece.swift.replacingOccurrences(of: "§", with: "r")) }),\n"
            } else {
                // Named, so a closure inside may use `$0` and still reach the row.
                out += "        OracleCase(\"\(vein)\", #Predicate<OracleRow> { r in \(piece.swift.replacingOccurrences(of: "§", with: "r")) }),\n"
            }
        }
        return out + "    ]\n}\n"
    }
}
