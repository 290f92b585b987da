import Foundation
import Synchronization
import Testing
@testable import Vein

/// Hostile nesting is an error on any thread, whatever its stack: the expression passes ask `StackSpace`
/// for room before each level. (Before the guard, 100 levels of parentheses overflowed a 1 MiB stack in a
/// debug build, and the fuzzer's sanitized build overflowed the main thread's 8 MiB at 387.)
@Suite struct StackSpaceTests {
    /// Runs `body` on a new thread with a stack of `bytes` and waits for it.
    func onThread(stack bytes: Int, _ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            body()
            done.signal()
        }
        thread.stackSize = bytes
        thread.start()
        done.wait()
    }

    /// What running `statement` on a fresh in-memory blog store answered: its result or its error.
    static func run(_ statement: String) -> String {
        do {
            let manifest = try Fixtures.blogManifest()
            let database = try Database(path: ":memory:", mode: .create, key: nil)
            for sql in SchemaDDL.createStatements(for: manifest) { try database.execute(sql) }
            let context = try ObjectContext(database: database, manifest: manifest)
            _ = try context.insert("Post", ["title": .string("a"), "content": .string("b"), "views": .int(3)])
            switch try QueryRunner(context: context).run(statement) {
            case .count(let n): return "count \(n)"
            default: return "other"
            }
        } catch {
            return "\(error)"
        }
    }

    @Test(arguments: [256 << 10, 512 << 10])
    func deepNestingOnASmallStackIsAnError(stack: Int) {
        let parentheses = String(repeating: "(", count: 511) + "views > 1" + String(repeating: ")", count: 511)
        let chain = "views" + String(repeating: " + 1", count: 500) + " > 0"
        let negations = String(repeating: "-", count: 500) + "views > 0"
        let answers = Mutex<[String]>([])
        onThread(stack: stack) {
            for condition in [parentheses, chain, negations] {
                let answer = Self.run("count Post where \(condition)")
                answers.withLock { $0.append(answer) }
            }
        }
        for answer in answers.withLock({ $0 }) {
            #expect(answer.contains("nested too deeply for this thread's stack"), "\(answer.prefix(200))")
        }
    }

    @Test func ordinaryExpressionsRunOnASmallStack() {
        let answer = Mutex("")
        onThread(stack: 256 << 10) {
            answer.withLock { $0 = Self.run("count Post where (views + 1) * 2 > 3 && title.contains(\"a\") || !(views == 0)") }
        }
        #expect(answer.withLock { $0 } == "count 1")
    }

    @Test func anEightMiBStackKeepsTheNestingLimit() {
        // The main thread's size here: the 512-level limit is what stops it, with its own message.
        let deep = String(repeating: "(", count: 600) + "views > 1" + String(repeating: ")", count: 600)
        let answer = Mutex("")
        onThread(stack: 8 << 20) { answer.withLock { $0 = Self.run("count Post where \(deep)") } }
        #expect(answer.withLock { $0 }.contains("nested too deeply (more than 512 levels)"))
    }
}
