import Foundation
import Testing
@testable import VeinCore

/// A live query while several contexts save on several threads and others read its results: it ends with
/// every saved row, and nothing races (this suite runs under the thread sanitizer: scripts/test's filter
/// matches "ContextTests").
@Suite struct LiveQueryContextTests {
    typealias F = LiveQueryFixture

    @Test func followsSavesFromManyThreadsWhileBeingRead() throws {
        let container = try F.container()
        let all = LiveQuery<Chore>(in: container.context, pollInterval: .milliseconds(10))
        let observed = ResultsChangeCounter(all)
        let writers = 4, savesEach = 10
        let failures = FailureList()
        let done = Flag()
        let reader = Thread {
            // Reads results and touches the objects while refreshes replace them.
            while !done.isSet { _ = all.results.map(\.title).count; _ = all.error }
        }
        reader.start()
        DispatchQueue.concurrentPerform(iterations: writers + 1) { worker in
            do {
                if worker == writers {
                    for _ in 0..<savesEach { all.refresh() }
                    return
                }
                let context = container.newContext()
                for n in 0..<savesEach { try F.insert(["chore \(worker)-\(n)"], into: context) }
            } catch {
                failures.append("\(error)")
            }
        }
        // Then saves alone, from several threads again: only the live query's own refreshes show them.
        DispatchQueue.concurrentPerform(iterations: writers) { worker in
            do {
                try F.insert(["last chore \(worker)"], into: container.newContext())
            } catch {
                failures.append("\(error)")
            }
        }
        #expect(failures.items.isEmpty)
        let total = writers * (savesEach + 1)
        #expect(F.eventually { all.results.count == total })
        done.set()
        #expect(Set(all.results.map(\.title)).count == total)
        #expect(observed.changes >= 1)
        #expect(all.error == nil)
    }
}

final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

final class FailureList: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    var items: [String] { lock.withLock { list } }
    func append(_ item: String) { lock.withLock { list.append(item) } }
}
