import Foundation
import Testing
@testable import Vein

/// A closure kept in a `Mutex` of its own function type is re-wrapped in one more reabstraction thunk at
/// every `withLock` that reads it back, so the Nth call runs through N layers: the fault injector of
/// `FileCalls` did this, and the test run spent minutes in it. Closures a lock guards live in a
/// `LockedClosure` (or any generic class) instead; this checks the sources for the pattern.
@Suite struct ClosureStorageTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    /// The `Mutex<…>` declarations in `text` whose value is a function type, written out or through a
    /// typealias of one declared in `aliases`.
    static func closuresInMutexes(_ text: String, aliases: Set<String>) -> [String] {
        text.split(separator: "\n").map(String.init).filter { line in
            guard let range = line.range(of: "Mutex<") else { return false }
            let argument = line[range.upperBound...].drop { $0 == " " }
            if argument.hasPrefix("(") || argument.hasPrefix("@") { return true }
            let name = String(argument.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }).split(separator: ".").last.map(String.init)
            return name.map(aliases.contains) ?? false
        }
    }

    static func functionAliases(_ text: String) -> Set<String> {
        Set(text.split(separator: "\n").compactMap { line -> String? in
            guard let range = line.range(of: "typealias "), line.contains("->") else { return nil }
            return String(line[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "_" })
        })
    }

    @Test func noMutexHoldsAClosure() throws {
        let files = try #require(FileManager.default.enumerator(atPath: Self.sources.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        #expect(files.count > 100, "the sources are at \(Self.sources.path)")
        let texts = try files.map { try String(contentsOf: Self.sources.appendingPathComponent($0), encoding: .utf8) }
        let aliases = texts.reduce(into: Set<String>()) { $0.formUnion(Self.functionAliases($1)) }
        for (file, text) in zip(files, texts) {
            #expect(Self.closuresInMutexes(text, aliases: aliases).isEmpty, "\(file) keeps a closure in a Mutex; use LockedClosure")
        }
    }

    /// The check finds the two forms the hooks had.
    @Test func theCheckFindsAClosureInAMutex() {
        let aliases = Self.functionAliases("package typealias Injector = @Sendable (Kind, String) -> Decision")
        #expect(aliases == ["Injector"])
        #expect(Self.closuresInMutexes("private static let injector = Mutex<Injector?>(nil)", aliases: aliases).count == 1)
        #expect(Self.closuresInMutexes("static let hook = Mutex<(@Sendable (String) -> Void)?>(nil)", aliases: []).count == 1)
        #expect(Self.closuresInMutexes("let rows = Mutex<[Row]>([])", aliases: aliases).isEmpty)
    }

    /// A `LockedClosure` read many times calls the same closure, not one wrapped once per read.
    @Test func aLockedClosureReadsBackTheClosureItHolds() {
        let hook = LockedClosure<@Sendable (Int) -> Int>()
        #expect(hook.current == nil)
        hook.current = { $0 + 1 }
        var total = 0
        for n in 0..<10_000 { total += hook.current?(n) ?? 0 }
        #expect(total == (1...10_000).reduce(0, +))
        hook.current = nil
        #expect(hook.current == nil)
    }
}
