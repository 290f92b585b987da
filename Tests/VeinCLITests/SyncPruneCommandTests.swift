import Foundation
import Testing

/// `vein sync prune` through the built binary (docs/sync.md#pruning), over both relays: each replica
/// removes its own segments once a checkpoint holds them and every replica merged them; a new replica
/// starts from the checkpoint; a prune killed at any moment leaves a relay every replica still syncs
/// through.
@Suite struct SyncPruneCommandTests {
    typealias S = SyncCommandTests

    /// a and b of `SyncCommandTests.replicas`, each with three commits sent and merged by the other.
    static func synced(_ relay: S.Relay) throws -> (VeinRunner, String) {
        let (r, location) = try S.replicas(relay)
        for n in 1...3 {
            for replica in ["a", "b"] {
                try S.insert(r, replica, "secret \(n) from \(replica)")
                try S.expectOK(r, ["sync", "\(replica).vein"] + S.key(replica))
            }
        }
        return (r, location)
    }

    @Test(arguments: S.relays) func eachReplicaPrunesWhatTheOtherMerged(_ relay: S.Relay) throws {
        let (r, location) = try Self.synced(relay)
        defer { r.cleanUp() }
        let before = try S.segmentCount(r, location)

        let first = try S.expectOK(r, ["sync", "prune", "a.vein"] + S.key("a"))
        #expect(first.stderr.contains("sync: published checkpoint 1 on the relay\n"), "\(first.stderr)")
        #expect(first.stderr.contains("sync: removed 2 segments of this replica (pruned through segment 2)\n"), "\(first.stderr)")
        let second = try S.expectOK(r, ["sync", "prune", "b.vein", "--json"] + S.key("b"))
        #expect(second.stdout.contains(#""removed": 3"#) && second.stdout.contains(#""waitingFor": {}"#), "\(second.stdout)")
        #expect(try S.segmentCount(r, location) < before)

        let status = try S.expectOK(r, ["sync", "status", "a.vein"] + S.key("a"))
        #expect(status.stdout.contains("on the relay (") && status.stdout.contains("those before were pruned)"), "\(status.stdout)")

        // A new replica starts from the checkpoint; every replica still syncs and they agree.
        try S.expectOK(r, ["sync", "join", "c.vein", "--relay", location, "--sync-key-file", "sync.key"] + S.key("c"))
        try S.insert(r, "c", "secret from c")
        for replica in ["c", "a", "b", "a"] { try S.expectOK(r, ["sync", "\(replica).vein"] + S.key(replica)) }
        let a = try S.export(r, "a")
        for replica in ["b", "c"] { #expect(try S.export(r, replica) == a, "\(replica) differs") }
        for n in 1...3 { #expect(a.contains("secret \(n) from b")) }
        #expect(a.contains("secret from c"))

        // The checkpoint is as blind as the rest of the relay.
        for (file, bytes) in try S.relayContents(r, location) {
            for word in ["secret", "title", "Post", "attachments"] {
                #expect(bytes.range(of: Data(word.utf8)) == nil, "\(word) in \(file)")
            }
        }
    }

    /// kill -9 at random moments of `vein sync prune`: running it again finishes, a replica joined after
    /// starts whole, and every replica ends with the same rows.
    @Test(arguments: S.relays) func aKilledPruneLeavesARelayEveryReplicaSyncsThrough(_ relay: S.Relay) throws {
        var delays = KillDelays()
        var limit: UInt64 = 0
        var kills = 0, round = 0
        while kills < 6 && round < 20 {
            defer { round += 1 }
            let (r, location) = try Self.synced(relay)
            defer { r.cleanUp() }
            let command = ["sync", "prune", "a.vein"] + S.key("a")
            if limit == 0 {
                limit = try BackupCrashTests.duration(r, command)
                continue
            }
            if try BackupCrashTests.killed(r, command, after: delays.next(below: limit)) {
                kills += 1
                limit = limit * 5 / 4
            } else {
                limit = max(1_000, limit * 3 / 4)
            }
            try S.expectOK(r, ["sync", "prune", "b.vein"] + S.key("b"))
            try S.expectOK(r, command)
            try S.expectOK(r, ["sync", "join", "c.vein", "--relay", location, "--sync-key-file", "sync.key"] + S.key("c"))
            for replica in ["a", "b", "c"] { try S.expectOK(r, ["sync", "\(replica).vein"] + S.key(replica)) }
            let a = try S.export(r, "a")
            for replica in ["b", "c"] { #expect(try S.export(r, replica) == a, "round \(round): \(replica) differs") }
            for n in 1...3 {
                for replica in ["a", "b"] {
                    #expect(a.components(separatedBy: "secret \(n) from \(replica)").count == 2, "round \(round)")
                }
            }
        }
        #expect(kills >= 6, "prunes killed while they ran: \(kills) of \(round)")
        print("prune crash test: \(kills) prunes killed while they ran, of \(round)")
    }

    @Test(arguments: S.relays) func aForgottenReplicaHoldsPruningBackNoMore(_ relay: S.Relay) throws {
        let (r, location) = try Self.synced(relay)
        defer { r.cleanUp() }
        try S.expectOK(r, ["sync", "join", "c.vein", "--relay", location, "--sync-key-file", "sync.key"] + S.key("c"))
        let status = try S.expectOK(r, ["sync", "status", "c.vein", "--json"] + S.key("c")).stdout
        let c = try #require((try JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any])?["replica"] as? String)
        try S.expectOK(r, ["sync", "prune", "b.vein"] + S.key("b"))
        let waiting = try S.expectOK(r, ["sync", "prune", "a.vein"] + S.key("a"))
        #expect(waiting.stderr.contains("sync: replica \(c) has merged this replica's segments through 0 only; later ones stay until it syncs again"),
                "\(waiting.stderr)")

        let unknown = try r.vein(["sync", "forget", "a.vein", "--replica", "01JDQ8ZK3M8Q2V6Y0X9T4B7C1D"] + S.key("a"))
        #expect(unknown.status == 64 && unknown.stderr.hasPrefix("vein: error: ") && unknown.stderr.hasSuffix("knows no replica 01JDQ8ZK3M8Q2V6Y0X9T4B7C1D\n"
                + "hint: 'vein sync status STORE' lists the replicas\n"), "\(unknown.stderr)")
        let own = try r.vein(["sync", "forget", "c.vein", "--replica", c] + S.key("c"))
        #expect(own.status == 64 && own.stderr == "vein: error: \(c) is this store's own replica: a replica forgets others, never itself\n"
                + "hint: forget this replica from another one, once it will not sync again\n", "\(own.stderr)")
        let forgot = try S.expectOK(r, ["sync", "forget", "a.vein", "--replica", c] + S.key("a"))
        #expect(forgot.stderr == "sync: replica \(c) is forgotten; pruning waits for it no more, and it syncs no more\n")
        let pruned = try S.expectOK(r, ["sync", "prune", "a.vein", "--json"] + S.key("a"))
        #expect(pruned.stdout.contains(#""waitingFor": {}"#) && !pruned.stdout.contains(#""removed": 0"#), "\(pruned.stdout)")
        #expect(try S.expectOK(r, ["sync", "status", "a.vein"] + S.key("a")).stdout.contains("replica \(c) (forgotten): "))

        let refused = try S.sync(r, "c")
        #expect(refused.status == 65)
        #expect(refused.stderr.hasSuffix("it syncs no more\nhint: nothing was sent or merged; make a new replica with 'vein sync join' "
                + "(this store's commits not yet sent are not in it)\n"), "\(refused.stderr)")
    }
}
