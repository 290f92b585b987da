import Foundation
import Synchronization
import Testing
import VeinCore

/// Models are Sendable (docs/app-guide.md): one instance shared by threads, and contexts of their own on several
/// threads over one container. scripts/test runs this suite again under the thread sanitizer (its name
/// matches the sanitizer run's filter).
@Suite struct TypedContextTests {
    @Test func threadsShareAnInstanceAndEachHasAContext() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let container = try ModelContainer(for: V0_0_1.self, at: "\(folder)/blog.vein", appID: "com.example.blog",
                                           keyProvider: ModelContainerTests.keys(folder))
        let shared = Post(title: "shared", content: "")
        container.context.insert(shared)
        try container.context.save()

        let threads = 4, perThread = 20
        let failures = Mutex([String]())
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            do {
                let context = container.newContext()
                for i in 0..<perThread {
                    _ = shared.title
                    shared.content = "thread \(t)"
                    let post = Post(title: "t\(t)-\(i)", content: "")
                    post.attachments = [Attachment(name: "a\(t)-\(i)", fileType: .png, data: Data([UInt8(i)]))]
                    context.insert(post)
                    #expect(post.attachments.first?.post === post)
                }
                try context.save()
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        try container.context.save()
        let reader = container.newContext()
        #expect(try reader.fetchCount(Post.self) == 1 + threads * perThread)
        #expect(try reader.fetchCount(Attachment.self) == threads * perThread)
        #expect(try reader.fetch(Post.self, where: #"title == "shared""#).first?.content.hasPrefix("thread ") == true)
    }

    /// Inside the engine's transaction (its context lock held) a model is written while another thread
    /// is reading one: both finish, because the two locks are always taken in one order (with the
    /// instance lock held across the engine call, as first written, this deadlocked).
    @Test func aTransactionBodyWritingAModelDoesNotDeadlockWithAReader() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let container = try ModelContainer(for: V0_0_1.self, at: "\(folder)/blog.vein", appID: "com.example.blog",
                                           keyProvider: ModelContainerTests.keys(folder))
        let post = Post(title: "p", content: "")
        container.context.insert(post)
        try container.context.save()
        let inTransaction = DispatchSemaphore(value: 0), finished = DispatchSemaphore(value: 0)
        let readerStarts = DispatchSemaphore(value: 0)
        let reader = Mutex<ObservedThread?>(nil)
        let readerBlocked = Mutex(false)
        DispatchQueue.global().async {
            try? container.context.transaction {
                inTransaction.signal()
                readerStarts.wait()
                // The write comes once the reader waits for the context's lock (or needed none and is done).
                readerBlocked.withLock { $0 = reader.withLock { $0 }!.waitUntilBlockedOrGone() }
                post.views = 1
            }
            finished.signal()
        }
        DispatchQueue.global().async {
            inTransaction.wait()
            reader.withLock { $0 = .current() }
            readerStarts.signal()
            _ = post.title
            finished.signal()
        }
        #expect(finished.wait(timeout: .now() + 20) == .success)
        #expect(finished.wait(timeout: .now() + 20) == .success)
        #expect(readerBlocked.withLock { $0 })
    }

    /// Two threads read every field of fetched instances while a third writes them, all in one context:
    /// a read sees the value before a write or after it, never a torn one (the context's lock keeps the
    /// object's values; field reads skip Swift's run-time exclusivity checks on them, see `ModelObject`).
    /// Under the thread sanitizer, any unguarded access is a report.
    @Test func twoReadersAndAWriterShareFetchedInstances() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let container = try ModelContainer(for: V0_0_1.self, at: "\(folder)/blog.vein", appID: "com.example.blog",
                                           keyProvider: ModelContainerTests.keys(folder))
        for n in 0..<50 { container.context.insert(Post(title: "p\(n)", content: String(repeating: "c", count: n))) }
        try container.context.save()
        let context = container.newContext()
        let posts = try context.fetch(FetchDescriptor<Post>(sortBy: [SortDescriptor(\.title)]))
        let rounds = 200
        let torn = Mutex([String]())
        DispatchQueue.concurrentPerform(iterations: 3) { role in
            for round in 0..<rounds {
                for post in posts {
                    if role == 0 {
                        post.views = round
                        post.title = "\(post.title.prefix { $0 != "/" })/\(round)"
                    } else {
                        let views = post.views, title = post.title
                        if views < 0 || views >= rounds || !title.hasPrefix("p") { torn.withLock { $0.append("\(title) \(views)") } }
                    }
                }
            }
        }
        #expect(torn.withLock { $0 } == [])
        #expect(posts.allSatisfy { $0.views == rounds - 1 && $0.title.hasSuffix("/\(rounds - 1)") })
        try context.save()
    }

    /// An instance let go on one thread while another fetches its row: the other gets the instance if it
    /// still lives, or a new one, never one being deinitialized (the object's link to its instance,
    /// `InstanceLink`, reads what a weak reference would). Within one fetch's hold, a row is one instance.
    /// The thread sanitizer runs this suite.
    @Test func instancesLetGoWhileAnotherThreadFetchesThem() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let container = try ModelContainer(for: V0_0_1.self, at: "\(folder)/blog.vein", appID: "com.example.blog",
                                           keyProvider: ModelContainerTests.keys(folder))
        for n in 0..<40 { container.context.insert(Post(title: "p\(n)", content: "c")) }
        try container.context.save()
        let context = container.newContext()
        let wrong = Mutex([String]())
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            for _ in 0..<150 {
                do {
                    let first = try context.fetch(FetchDescriptor<Post>(sortBy: [SortDescriptor(\.title)]))
                    let again = try context.fetch(FetchDescriptor<Post>(sortBy: [SortDescriptor(\.title)]))
                    if first.count != 40 || zip(first, again).contains(where: { $0 !== $1 }) {
                        wrong.withLock { $0.append("two instances of one row in one hold") }
                    }
                    if let bad = again.first(where: { !$0.title.hasPrefix("p") }) { wrong.withLock { $0.append(bad.title) } }
                } catch { wrong.withLock { $0.append("\(error)") } }
            }
        }
        #expect(wrong.withLock { $0 } == [])
    }
}

/// A value behind a lock, for the test's own bookkeeping.
final class Mutex<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T { lock.withLock { body(&value) } }
}
