import Foundation
import Testing
@testable import Vein

/// The change log's one promise (docs/history.md#replay): replaying a commit's records onto the state
/// before it gives the state after it. Checked as a property over random sequences of what writes rows
/// (saves of inserts, field changes, links and reorders of every relationship shape, deletes by rule,
/// statements, imports, failed saves and rolled-back savepoints): after every step the store and a
/// mirror that only ever received the replayed log export the same bytes.
@Suite struct ChangeLogReplayTests {
    static let manifestText = """
        { vein: 1, app: "test.history", version: "1.0.0", models: {
            Post: { fields: { title: "string", views: "int", score: "double?", slug: "string? unique", cover: "data?" },
                    relationships: { attachments: { to: "Attachment", many: true, inverse: "post", deleteRule: "cascade" },
                                     tags: { to: "Tag", many: true, inverse: "posts" }, related: { to: "Post", many: true },
                                     folder: { to: "Folder", inverse: "items" } } },
            Attachment: { fields: { name: "string", sizeMiB: "double" }, relationships: { post: { to: "Post", inverse: "attachments" } } },
            Tag: { fields: { name: "string" }, relationships: { posts: { to: "Post", many: true, inverse: "tags", deleteRule: "deny" } } },
            Folder: { fields: { name: "string" }, relationships: { items: { to: "Post", many: true, inverse: "folder" } } },
        } }
        """

    final class Fixture {
        let dir: TempDir
        let manifest: SchemaManifest
        let store: Store
        let mirror: Store
        var replayedThrough: Int64 = 0

        init() throws {
            dir = try TempDir()
            manifest = try ManifestParser.parse(ChangeLogReplayTests.manifestText, file: "history.json5")
            _ = try StoreCreator.create(at: dir.path("s.vein"), manifest: manifest, protection: .plaintext, keepsChangeLog: true)
            _ = try StoreCreator.create(at: dir.path("m.vein"), manifest: manifest, protection: .plaintext)
            store = try Store.open(dir.path("s.vein"), keys: KeyOptions(keyring: nil))
            mirror = try Store.open(dir.path("m.vein"), keys: KeyOptions(keyring: nil))
        }

        deinit { dir.cleanUp() }

        /// Replays what the log gained since the last call onto the mirror; returns those transactions.
        @discardableResult
        func replayNew() throws -> [LoggedTransaction] {
            var reader = ChangeLogReader()
            reader.afterToken = replayedThrough
            let new = try reader.transactions(in: store.database)
            try mirror.database.transaction {
                for transaction in new { try ChangeReplayer(database: mirror.database).apply(transaction) }
            }
            replayedThrough = new.last?.token ?? replayedThrough
            return new
        }

        func export(_ store: Store) throws -> String { try RandomWrites.export(store, in: dir) }

        func expectMirrorMatches(_ step: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let new = try replayNew()
            try #require(!new.contains { $0.kind == .outside }, "\(step): the log saw writes it did not record", sourceLocation: sourceLocation)
            let a = try export(store).split(separator: "\n"), b = try export(mirror).split(separator: "\n")
            let differing = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }
                .map { "line \($0.offset + 1):\n  store:  \($0.element.0)\n  mirror: \($0.element.1)" } ?? "lengths \(a.count), \(b.count)"
            try #require(a == b, "\(step): the replayed log differs from the store at \(differing)", sourceLocation: sourceLocation)
            let report = try StoreVerifier.verify(store)
            try #require(report.isClean, "\(step): \(report)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func replayingTheLogGivesTheStoreItsState(seed: UInt64) throws {
        let f = try Fixture()
        let context = ObjectContext(store: f.store)
        let runner = QueryRunner(context: context)

        var writes = RandomWrites(context: context, runner: runner, store: f.store, dir: f.dir, seed: seed)
        for step in 0..<60 {
            guard let what = try writes.step(step) else { continue }
            try f.expectMirrorMatches(what)
        }
        let transactions = try ChangeLogReader().transactions(in: f.store.database)
        #expect(transactions.count > 20, "most steps commit")
        #expect(transactions.map(\.token) == transactions.map(\.token).sorted())
        #expect(zip(transactions, transactions.dropFirst()).allSatisfy { $0.clock < $1.clock })
    }
}
