import Foundation
import Testing

/// `vein migrate` on synced stores through the built binary (docs/sync.md#migrations), over both relays:
/// the first replica publishes its migrated store, the others are refused with a message that says to
/// migrate, then carry their own changes across; a new replica starts from the migration; a migrate
/// killed at any moment finishes when run again.
@Suite struct SyncMigrationCommandTests {
    typealias S = SyncCommandTests
    static let plan = VeinRunner.packageRoot.appendingPathComponent("examples/migration/plan.json5").path

    @Test(arguments: S.relays) func everyReplicaCrossesAMigrationWithItsOwnChanges(_ relay: S.Relay) throws {
        let (r, location) = try S.replicas(relay)
        defer { r.cleanUp() }
        try S.insert(r, "b", "unsent from b")
        try S.expectOK(r, ["query", "b.vein", #"update Post where title == "before the sync" set content = "edited on b""#] + S.key("b"))

        let published = try S.expectOK(r, ["migrate", "a.vein", "--plan", Self.plan] + S.key("a"))
        #expect(published.stdout.contains("sync: published migration 1 on the relay; the other replicas migrate with this plan before they sync again"),
                "\(published.stdout)")
        try S.expectOK(r, ["query", "a.vein", #"update Post where headline == "before the sync" set views = 7"#] + S.key("a"))
        try S.expectOK(r, ["sync", "a.vein"] + S.key("a"))

        // b, still at 0.0.1, is refused, and keeps its changes.
        let refused = try S.sync(r, "b")
        #expect(refused.status == 78)
        #expect(refused.stderr.contains("vein: error: another replica migrated the sync to a newer schema (migration 1 on \(relay == .folder ? r.path(location) : location)), and this store is at 0.0.1"), "\(refused.stderr)")
        #expect(refused.stderr.contains("hint: nothing was sent or merged, and this store's changes stay in it: migrate it with the plan the others used ('vein migrate STORE --plan PLAN'), which carries them across"))
        #expect(try S.export(r, "b").contains("unsent from b"))

        let rebased = try S.expectOK(r, ["migrate", "b.vein", "--plan", Self.plan, "--json"] + S.key("b"))
        #expect(rebased.stdout.contains(#""sync": {"#) && rebased.stdout.contains(#""outcome": "rebased""#) && rebased.stdout.contains(#""carried": 2"#),
                "\(rebased.stdout)")
        for replica in ["b", "a"] { try S.expectOK(r, ["sync", "\(replica).vein"] + S.key(replica)) }
        let a = try S.export(r, "a")
        #expect(a == (try S.export(r, "b")))
        #expect(a.contains(#""headline":"unsent from b","slug":"unsent from b""#), "\(a)")
        #expect(a.contains(#""content":"edited on b","views":7"#), "both replicas' changes of one post: \(a)")

        // A replica joined now starts from the migration.
        try S.expectOK(r, ["sync", "join", "c.vein", "--relay", location, "--sync-key-file", "sync.key"] + S.key("c"))
        #expect(try S.export(r, "c") == a)
        let status = try S.expectOK(r, ["sync", "status", "c.vein"] + S.key("c"))
        #expect(status.stdout.contains("schema: 0.1.0, from migration 1"), "\(status.stdout)")
        // Nothing on the relay names the new schema's fields.
        for (file, bytes) in try S.relayContents(r, location) {
            for word in ["headline", "slug", "unsent from b", "0.1.0"] {
                #expect(bytes.range(of: Data(word.utf8)) == nil, "\(word) in \(file)")
            }
        }
    }

    /// kill -9 at random moments of `vein migrate` on the first replica and on the second: the same
    /// command run again finishes (publishing, or starting from the migration), and the replicas end equal
    /// with every change once.
    @Test(arguments: S.relays) func aKilledMigrationFinishesWhenRunAgain(_ relay: S.Relay) throws {
        var delays = KillDelays()
        var limits = ["a": UInt64(0), "b": 0]
        var kills = 0, round = 0
        while kills < 8 && round < 24 {
            defer { round += 1 }
            let (r, _) = try S.replicas(relay)
            defer { r.cleanUp() }
            try S.insert(r, "a", "a before")
            try S.insert(r, "b", "b unsent")
            for replica in ["a", "b"] {
                let command = ["migrate", "\(replica).vein", "--plan", Self.plan] + S.key(replica)
                if limits[replica] == 0 {
                    limits[replica] = try BackupCrashTests.duration(r, command)
                    continue
                }
                if try BackupCrashTests.killed(r, command, after: delays.next(below: limits[replica]!)) {
                    kills += 1
                    limits[replica] = limits[replica]! * 5 / 4
                } else {
                    limits[replica] = max(1_000, limits[replica]! * 3 / 4)
                }
                try S.expectOK(r, command)
            }
            for replica in ["b", "a", "b"] { try S.expectOK(r, ["sync", "\(replica).vein"] + S.key(replica)) }
            let a = try S.export(r, "a")
            #expect(a == (try S.export(r, "b")), "round \(round)")
            for title in ["before the sync", "a before", "b unsent"] {
                #expect(a.components(separatedBy: #""headline":"\#(title)""#).count == 2, "round \(round): \(title) once in \(a)")
            }
            for replica in ["a", "b"] { try S.expectOK(r, ["verify", "\(replica).vein"] + S.key(replica)) }
        }
        #expect(kills >= 8, "migrations killed while they ran: \(kills) of \(2 * round)")
        print("migration crash test: \(kills) migrations killed while they ran, of \(2 * round)")
    }
}
