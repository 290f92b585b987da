import Foundation
import Testing
@testable import Vein

/// Sync's promise (docs/sync.md#merging): after every replica has sent its commits and received everyone
/// else's, all replicas hold the same store, whatever each did meanwhile and in whatever order the relay
/// delivered. Checked as a property: three replicas make random writes of every kind (saves, links and
/// reorders, deletes with cascades, statements, imports), and sync and prune at random moments, each through
/// its own copy of the relay into which a courier carries the others' segments late, out of order and twice.
@Suite struct SyncConvergenceTests {
    /// The history tests' schema, with a cascade through a link table too (`Post.related`).
    static let manifestText = ChangeLogReplayTests.manifestText.replacingOccurrences(
        of: #"related: { to: "Post", many: true }"#, with: #"related: { to: "Post", many: true, deleteRule: "cascade" }"#)

    final class Replicas {
        let dir: TempDir
        let manifest: SchemaManifest
        var stores: [Store] = []
        var sessions: [SyncSession] = []
        var writes: [RandomWrites] = []
        var rng: SplitMix64
        let count: Int

        init(count: Int, seed: UInt64) throws {
            self.count = count
            dir = try TempDir()
            rng = SplitMix64(seed: seed &* 31 &+ 7)
            manifest = try ManifestParser.parse(SyncConvergenceTests.manifestText, file: "sync.json5")
            _ = try StoreCreator.create(at: dir.path("r0.vein"), manifest: manifest, protection: .plaintext, keepsChangeLog: true)
            let first = try Store.open(dir.path("r0.vein"), keys: KeyOptions(keyring: nil))
            // Rows every replica starts with (the relay's snapshot holds them, unstamped), for the replicas to contend over.
            let seeding = ObjectContext(store: first)
            let tags = try (0..<3).map { try seeding.insert("Tag", ["name": .string("tag \($0)")]) }
            for n in 0..<4 {
                let post = try seeding.insert("Post", ["title": .string("post \(n)"), "views": .int(Int64(n)),
                                                       "tags": .array(tags.prefix(n).map { .string($0.id) })])
                _ = try seeding.insert("Attachment", ["name": .string("a \(n)"), "sizeMiB": .double(1), "post": .string(post.id)])
            }
            try seeding.save()
            try SyncSession.begin(first, relay: dir.path("relay0"), keyFile: dir.path("sync.key"))
            stores.append(first)
            for i in 1..<count {
                // Each replica has a relay of its own: a copy of the first, into which the courier carries segments.
                try FileManager.default.copyItem(atPath: dir.path("relay0"), toPath: dir.path("relay\(i)"))
                _ = try SyncSession.join(relay: dir.path("relay\(i)"), keyFile: dir.path("sync.key"), to: dir.path("r\(i).vein"),
                                         protection: { _ in .plaintext })
                let store = try Store.open(dir.path("r\(i).vein"), keys: KeyOptions(keyring: nil))
                try SyncSession.adopt(store, relay: try SyncRelay.open(dir.path("relay\(i)")), keyFile: dir.path("sync.key"))
                stores.append(store)
            }
            // Every relay copy knows every replica from the start, as one shared relay does once each has
            // joined: a prune waits for each of them to merge what it removes.
            let ids = try stores.map { try #require(try ChangeLogSchema.replica(in: $0.database)) }
            for i in 0..<count {
                for id in ids { try FileManager.default.createDirectory(atPath: dir.path("relay\(i)/\(id)"), withIntermediateDirectories: true) }
            }
            for (i, store) in stores.enumerated() {
                sessions.append(try SyncSession(store: store))
                let context = ObjectContext(store: store)
                writes.append(RandomWrites(context: context, runner: QueryRunner(context: context), store: store, dir: dir,
                                           seed: seed &* 1000 &+ UInt64(i)))
            }
        }

        deinit { dir.cleanUp() }

        /// Every segment file in replica `i`'s relay, as paths relative to it.
        func segments(in i: Int) throws -> [String] {
            let relay = dir.path("relay\(i)")
            return try FileManager.default.contentsOfDirectory(atPath: relay).filter { $0.count == 26 }.flatMap { replica in
                try FileManager.default.contentsOfDirectory(atPath: relay + "/" + replica).filter { $0.hasSuffix(".vseal") }.map { replica + "/" + $0 }
            }
        }

        /// Carries one random segment from one relay copy to another (again, when it is there already).
        func carry() throws {
            let from = Int.random(in: 0..<count, using: &rng), to = Int.random(in: 0..<count, using: &rng)
            guard from != to, let file = try segments(in: from).randomElement(using: &rng) else { return }
            let target = dir.path("relay\(to)/\(file)")
            try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let staged = target + ".carrying"
            try? FileManager.default.removeItem(atPath: staged)
            try FileManager.default.copyItem(atPath: dir.path("relay\(from)/\(file)"), toPath: staged)
            guard rename(staged, target) == 0 else { throw POSIXError(.EIO) }
        }

        /// Carries every segment everywhere.
        func carryAll() throws {
            for from in 0..<count {
                for file in try segments(in: from) {
                    for to in 0..<count where to != from && !FileManager.default.fileExists(atPath: dir.path("relay\(to)/\(file)")) {
                        let target = dir.path("relay\(to)/\(file)")
                        try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                        try FileManager.default.copyItem(atPath: dir.path("relay\(from)/\(file)"), toPath: target)
                    }
                }
            }
        }

        func export(_ i: Int) throws -> String { try RandomWrites.export(stores[i], in: dir) }

        /// A write on the oldest rows, which every replica holds: what replicas contend over (one field
        /// written on two replicas, two appends to one list, a delete against an update or a new link, a
        /// unique value claimed on two replicas by a new row or a changed one).
        func contend(_ i: Int) throws -> String? {
            let context = writes[i].context
            let posts = try context.fetch(ObjectFetch(model: "Post")).sorted { $0.id < $1.id }.prefix(3)
            guard let post = posts.randomElement(using: &rng) else { return nil }
            let word = "r\(i)-\(Int.random(in: 0..<1000, using: &rng))"
            switch Int.random(in: 0..<9, using: &rng) {
            case 0:
                try post.set("title", .string(word))
                if Bool.random(using: &rng) { try post.set("views", .int(Int64.random(in: 0..<100, using: &rng))) }
            case 1:
                guard let tag = try context.fetch(ObjectFetch(model: "Tag")).randomElement(using: &rng) else { return nil }
                try post.set("tags", .array(try post.related("tags").map { .string($0.id) }.filter { $0 != .string(tag.id) } + [.string(tag.id)]))
            case 2:
                try context.delete(post)
            case 3:
                guard let attachment = try context.fetch(ObjectFetch(model: "Attachment")).randomElement(using: &rng) else { return nil }
                try attachment.set("post", .string(post.id))
            case 4:
                guard let other = try context.fetch(ObjectFetch(model: "Post")).randomElement(using: &rng), other.id != post.id else { return nil }
                try post.set("related", .array(try post.related("related").map { .string($0.id) }.filter { $0 != .string(other.id) } + [.string(other.id)]))
            case 6:
                // A value another replica may claim too; here, maybe held already (the save is refused).
                try post.set("slug", .string("shared-\(Int.random(in: 0..<2, using: &rng))"))
            case 8:
                // Frees a value a set-aside row may be waiting for.
                guard let holder = try context.fetch(ObjectFetch(model: "Post")).first(where: { try $0["slug"] != .null }) else { return nil }
                try holder.set("slug", .null)
            case 7:
                let slug = "shared-\(Int.random(in: 0..<2, using: &rng))"
                let tags = try context.fetch(ObjectFetch(model: "Tag")).prefix(1).map { Value.string($0.id) }
                let new = try context.insert("Post", ["title": .string(word), "views": .int(1), "slug": .string(slug), "tags": .array(tags),
                                                      "related": .array([.string(post.id)])])
                _ = try context.insert("Attachment", ["name": .string(word), "sizeMiB": .double(3), "post": .string(new.id)])
                do { try context.save() } catch ContextError.uniqueValueHeld, ContextError.constraintViolation {
                    context.rollback()
                    return "contend: \(slug) is held here already"
                }
                return "contend: a new post \(new.id) claims \(slug)"
            default:
                _ = try context.insert("Attachment", ["name": .string(word), "sizeMiB": .double(2), "post": .string(post.id)])
            }
            do { try context.save() } catch ContextError.uniqueValueHeld, ContextError.constraintViolation {
                context.rollback()
                return "contend on \(post.id): its value is held here already"
            }
            return "contend on \(post.id)"
        }
    }

    /// Seeds run in `make test`; `VEIN_SYNC_SCHEDULES=N` runs N (the long run).
    static let seeds: [UInt64] = Array(1...UInt64(ProcessInfo.processInfo.environment["VEIN_SYNC_SCHEDULES"].flatMap { UInt64($0) } ?? 60))

    @Test(arguments: seeds)
    func replicasConvergeWhateverTheSchedule(seed: UInt64) throws {
        let replicas = try Replicas(count: 3 + Int(seed % 3), seed: seed)
        var rng = SplitMix64(seed: seed)
        var log: [String] = []
        // Half the schedules stop midway for every replica to prune, twice, the courier carrying everything
        // between: what each merged is acknowledged, and segments go. The writes and syncs that follow run
        // on the pruned relay copies.
        let prunesMidway = seed % 2 == 0
        var removed = 0
        func prune(_ i: Int) throws {
            let report = try replicas.sessions[i].prune()
            removed += report.removed
            log.append("r\(i) pruned \(report.removed) segments, through \(report.prunedThrough)")
        }
        for step in 0..<(prunesMidway ? 120 : 80) {
            if prunesMidway && step == 60 {
                for _ in 0..<2 {
                    try replicas.carryAll()
                    for i in 0..<replicas.count { try prune(i) }
                }
                try replicas.carryAll()
            }
            let i = Int.random(in: 0..<replicas.count, using: &rng)
            let choice = Int.random(in: 0..<8, using: &rng)
            switch choice {
            case 5, 6, 0, 1, 2:
                do {
                    // Step numbers differ between replicas: the unique values the writes make never collide.
                    let what = try [5, 6].contains(choice) ? replicas.contend(i) : replicas.writes[i].step(i * 1000 + step)
                    if let what { log.append("r\(i) \(what)") }
                } catch ContextError.conflict {
                    // A pull changed a row this replica's context had read: its save is refused, as an app's would be.
                    replicas.writes[i].context.rollback()
                    log.append("r\(i) a save refused after a pull changed what it read")
                }
            case 3:
                let report = try replicas.sessions[i].push()
                log.append("r\(i) pushed \(report.segments)")
            case 4:
                let report = try replicas.sessions[i].pull()
                log.append("r\(i) pulled \(report.segments)")
            case 7 where Int.random(in: 0..<3, using: &rng) == 0:
                // A prune between other steps publishes a checkpoint and acknowledges what it merged; it
                // seldom removes a segment (acknowledgements travel with the courier): the round above does.
                try prune(i)
            default:
                for _ in 0..<3 { try replicas.carry() }
            }
        }
        if prunesMidway && ProcessInfo.processInfo.environment["VEIN_SYNC_DEBUG"] != nil { print("seed \(seed): \(removed) segments pruned") }
        for i in 0..<replicas.count { try replicas.sessions[i].push() }
        try replicas.carryAll()
        for _ in 0..<2 {
            for i in 0..<replicas.count { try replicas.sessions[i].pull() }
        }
        let first = try replicas.export(0)
        for i in 1..<replicas.count {
            let other = try replicas.export(i)
            if other != first {
                let a = first.split(separator: "\n"), b = other.split(separator: "\n")
                let line = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }
                if ProcessInfo.processInfo.environment["VEIN_SYNC_DEBUG"] != nil {
                    for store in [replicas.stores[0], replicas.stores[i]] {
                        print("== \(store.path)")
                        for row in try store.database.rows(#"SELECT a."_id", a."post", a."_vein_pos_attachments", s."column", s."clock", s."replica" FROM "Attachment" a LEFT JOIN "_vein_sync_stamps" s ON s."tableName" = 'Attachment' AND s."key" = a."_id" ORDER BY a."_id""#) {
                            print(row.map { $0.string ?? $0.int64.map(String.init) ?? "null" }.joined(separator: " "))
                        }
                    }
                }
                Issue.record("seed \(seed): replica \(i) differs from replica 0 at line \(line?.offset ?? -1):\n\(line.map { "\($0.element.0)\n\($0.element.1)" } ?? "lengths \(a.count) \(b.count)")\n\(log.joined(separator: "\n"))")
                return
            }
            let report = try StoreVerifier.verify(replicas.stores[i])
            #expect(report.isClean, "seed \(seed): \(report.checks.flatMap(\.problems))")
        }
        #expect(try StoreVerifier.verify(replicas.stores[0]).isClean)
        if ProcessInfo.processInfo.environment["VEIN_SYNC_DEBUG"] != nil {
            // How much of the unique-value rules a schedule reached: rows and links set aside at the end, and
            // commits that settled what a replica's own commits freed.
            let aside = try replicas.stores[0].database.scalar(#"SELECT count(*) FROM "_vein_sync_shadow" WHERE "column" = ''"#)?.int64 ?? 0
            let settled = try replicas.stores.map {
                try $0.database.scalar(#"SELECT count(*) FROM "_vein_transactions" WHERE "replica" = 'sync'"#)?.int64 ?? 0
            }.reduce(0, +)
            print("seed \(seed): \(aside) set aside, \(settled) settling commits")
        }

        // And the store they agree on is the one the rules give, computed from every replica's own commits at once.
        var model = MergeModel(manifest: replicas.manifest)
        for store in replicas.stores {
            let own = try ChangeLogSchema.replica(in: store.database)
            for transaction in try ChangeLogReader().transactions(in: store.database) where transaction.replica == own && transaction.kind == .changes {
                model.apply(transaction)
            }
        }
        let expected = model.rows(), actual = try MergeModel.rows(of: replicas.stores[0], tables: model.tables)
        for table in model.tables.map(\.name) where expected[table] ?? [] != actual[table] ?? [] {
            let e = expected[table] ?? [], a = actual[table] ?? []
            let first = zip(e, a).first { $0.0 != $0.1 }
            Issue.record("seed \(seed): \(table) differs from the reference model: \(e.count) rows expected, \(a.count) held; first difference: \(first.map { "\($0.0) / \($0.1)" } ?? "a missing row")\n\(log.joined(separator: "\n"))")
        }
    }
}
