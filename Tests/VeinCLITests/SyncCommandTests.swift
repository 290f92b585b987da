import Foundation
import Testing

/// `vein sync` through the built binary (docs/sync.md): replicas made with `init` and `join` converge, the
/// relay holds nothing readable, every kind of tampering is refused by name with nothing merged past it,
/// a relay that goes back is noticed, a killed sync loses and repeats nothing, and the errors' words.
@Suite struct SyncCommandTests {
    /// The two relay backends every test of the suite runs over (docs/sync.md#the-relay).
    enum Relay: String, CaseIterable, Sendable {
        case folder, postgres

        /// A new relay: the folder `relay` in `r`'s directory, or a new database on the tests' server.
        func make(_ r: VeinRunner) throws -> String {
            switch self {
            case .folder: return "relay"
            case .postgres: return try PostgresServer.shared.get().database()
            }
        }
    }

    /// Both backends when a PostgreSQL server can be made here, the folder alone otherwise (the PostgreSQL
    /// tests then report "skipped": `PostgresRelayTests`).
    static let relays: [Relay] = PostgresServer.available ? Relay.allCases : [.folder]

    /// a.vein (the example blog, a change log, key in ka) made the first replica of a sync through a new
    /// `relay` with the key in `sync.key`, and b.vein joined from it (its own key, in kb).
    static func replicas(_ relay: Relay = .folder) throws -> (VeinRunner, String) {
        let r = try VeinRunner()
        let location = try relay.make(r)
        try expectOK(r, ["create", "a.vein", "--schema", VeinRunner.exampleManifest, "--history", "--key-file", "ka"])
        try insert(r, "a", "before the sync")
        try expectOK(r, ["sync", "init", "a.vein", "--relay", location, "--sync-key-file", "sync.key", "--key-file", "ka"])
        try expectOK(r, ["sync", "join", "b.vein", "--relay", location, "--sync-key-file", "sync.key", "--key-file", "kb"])
        return (r, location)
    }

    @discardableResult
    static func expectOK(_ r: VeinRunner, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> VeinRunner.Result {
        let result = try r.vein(arguments)
        try #require(result.status == 0, "\(arguments.joined(separator: " ")): \(result.stderr)", sourceLocation: sourceLocation)
        return result
    }

    static func key(_ replica: String) -> [String] { ["--key-file", "k" + replica] }

    static func insert(_ r: VeinRunner, _ replica: String, _ title: String) throws {
        try expectOK(r, ["query", "\(replica).vein", #"insert Post(title: "\#(title)", content: "written on \#(replica)")"#] + key(replica))
    }

    static func sync(_ r: VeinRunner, _ replica: String) throws -> VeinRunner.Result {
        try r.vein(["sync", "\(replica).vein"] + key(replica))
    }

    static func export(_ r: VeinRunner, _ replica: String) throws -> String {
        try expectOK(r, ["export", "\(replica).vein", "-q"] + key(replica)).stdout
    }

    /// The segment files of the relay, by replica folder.
    static func segments(_ r: VeinRunner) throws -> [String] {
        try FileManager.default.subpathsOfDirectory(atPath: r.path("relay")).filter { $0.hasSuffix(".vseal") && $0.contains("/") }.sorted()
    }

    /// How many segments the relay at `location` holds.
    static func segmentCount(_ r: VeinRunner, _ location: String) throws -> Int {
        guard location.hasPrefix("postgres:") else { return try segments(r).count }
        return Int(try PostgresServer.shared.get().psql(database(location), "SELECT count(*) FROM vein_segments")
            .trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// The database a relay URL names.
    static func database(_ url: String) -> String {
        String(url.dropFirst("postgres:///".count).prefix { $0 != "?" })
    }

    /// Every byte the relay's host can read: the folder's files, or the database's `pg_dump`.
    static func relayContents(_ r: VeinRunner, _ location: String) throws -> [(String, Data)] {
        guard location.hasPrefix("postgres:") else {
            return try FileManager.default.subpathsOfDirectory(atPath: r.path(location)).compactMap { file in
                FileManager.default.contents(atPath: r.path(location + "/" + file)).map { (file, $0) }
            }
        }
        // pg_dump's own comments ("PostgreSQL database dump") and session settings ("SET xmloption = content")
        // are PostgreSQL's words, not the relay's: left out. The tables, rows and sequences stay.
        let dump = try PostgresServer.shared.get().dump(database(location)).split(separator: "\n")
            .filter { !$0.hasPrefix("--") && !$0.hasPrefix("SET ") && !$0.hasPrefix("SELECT pg_catalog.set_config") }
        return [("pg_dump", Data(dump.joined(separator: "\n").utf8))]
    }

    @Test(arguments: relays) func twoReplicasConvergeAndTheRelaySeesNothing(_ relay: Relay) throws {
        let (r, location) = try Self.replicas(relay)
        defer { r.cleanUp() }
        #expect(try Self.export(r, "b").contains("before the sync"), "the joined replica starts from the relay's snapshot")
        try Self.insert(r, "a", "secret title on a")
        try Self.insert(r, "b", "secret title on b")
        // One field written on both; the later write wins on both.
        try Self.expectOK(r, ["query", "a.vein", #"update Post where title == "before the sync" set views = 5"#] + Self.key("a"))
        try Self.expectOK(r, ["query", "b.vein", #"update Post where title == "before the sync" set views = 7"#] + Self.key("b"))
        let first = try Self.sync(r, "a")
        #expect(first.status == 0)
        #expect(first.stderr == "sent 2 commits in 1 segment, received 0 commits in 0 segments\n")
        #expect(try Self.sync(r, "b").stderr == "sent 2 commits in 1 segment, received 2 commits in 1 segment\n")
        #expect(try Self.sync(r, "a").stderr == "sent 0 commits in 0 segments, received 2 commits in 1 segment\n")
        let a = try Self.export(r, "a"), b = try Self.export(r, "b")
        #expect(a == b)
        #expect(a.contains("secret title on a") && a.contains("secret title on b"))
        #expect(a.contains(#""views":7"#), "b's write is the later one: \(a)")
        for replica in ["a", "b"] { try Self.expectOK(r, ["verify", "\(replica).vein"] + Self.key(replica)) }
        let status = try Self.expectOK(r, ["sync", "status", "a.vein", "--json"] + Self.key("a")).stdout
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any], "\(status)")
        #expect(parsed["unsent"] as? Int == 0, "\(status)")
        let others = (parsed["replicas"] as? [[String: Any]] ?? []).filter { $0["self"] as? Bool == false }
        #expect(others.count == 1 && others.first?["merged"] as? Int == 1 && others.first?["onRelay"] as? Int == 1, "\(status)")
        // Last seen: when b wrote its newest segment (its header's clock), within this test's minutes.
        let seen = try #require((others.first?["lastSeen"] as? String).flatMap { ISO8601DateFormatter.withFraction.date(from: $0) }, "\(status)")
        #expect(abs(seen.timeIntervalSinceNow) < 600, "\(seen)")
        let text = try Self.expectOK(r, ["sync", "status", "a.vein"] + Self.key("a")).stdout
        #expect(text.contains(" merged, last seen 20") && text.contains("\nsync key: epoch 1\n"), "\(text)")
        // The merged commits are in b's history as a's.
        let history = try Self.expectOK(r, ["history", "b.vein", "--json"] + Self.key("b")).stdout
        #expect(history.contains("secret title on a"))

        // Blind: no title, content, model or field name in any byte of the relay, nor in hex (pg_dump's bytea).
        let secrets = ["secret title", "written on", "before the sync", "Post", "Attachment", "title", "content", "views"]
        let contents = try Self.relayContents(r, location)
        #expect(contents.count >= (relay == .folder ? 4 : 1) && contents.reduce(0) { $0 + $1.1.count } > 10_000, "\(contents.map(\.0))")
        for (file, data) in contents {
            for secret in secrets {
                #expect(data.range(of: Data(secret.utf8)) == nil, "\(file) holds \"\(secret)\"")
                let hex = secret.utf8.map { String(format: "%02x", $0) }.joined()
                #expect(data.range(of: Data(hex.utf8)) == nil, "\(file) holds \"\(secret)\" in hex")
            }
        }
    }

    @Test(arguments: relays) func aDeleteWinsOverAConcurrentUpdateAndAMemberAddedMeanwhileIsKept(_ relay: Relay) throws {
        let (r, _) = try Self.replicas(relay)
        defer { r.cleanUp() }
        try #require(try Self.sync(r, "a").status == 0)
        try Self.expectOK(r, ["query", "a.vein", #"delete Post where title == "before the sync""#] + Self.key("a"))
        try Self.expectOK(r, ["query", "b.vein", #"update Post where title == "before the sync" set views = 99"#] + Self.key("b"))
        let exported = try Self.export(r, "b")
        let line = try #require(exported.split(separator: "\n").first { $0.contains("before the sync") }, "\(exported)")
        let id = try #require(line.split(separator: "\"").first { $0.count == 26 }.map(String.init), "\(line)")
        try Self.expectOK(r, ["query", "b.vein", #"insert Attachment(name: "added on b", fileType: .png, sizeMiB: 1, post: "\#(id)")"#] + Self.key("b"))
        for replica in ["a", "b", "a"] { try #require(try Self.sync(r, replica).status == 0) }
        let a = try Self.export(r, "a")
        #expect(a == (try Self.export(r, "b")))
        #expect(!a.contains("before the sync"), "the delete wins")
        #expect(a.contains(#""name":"added on b""#) && a.contains(#""post":null"#), "the attachment b added meanwhile is kept, detached: \(a)")
        for replica in ["a", "b"] { try Self.expectOK(r, ["verify", "\(replica).vein"] + Self.key(replica)) }
    }

    @Test func tamperedSegmentsAreRefusedByNameAndNothingPastThemIsMerged() throws {
        let (r, _) = try Self.replicas()
        defer { r.cleanUp() }
        try Self.insert(r, "a", "one")
        try #require(try Self.sync(r, "a").status == 0)
        try Self.insert(r, "a", "two")
        try #require(try Self.sync(r, "a").status == 0)
        let files = try Self.segments(r)
        try #require(files.count == 2, "\(files)")
        let first = r.path("relay/" + files[0]), second = r.path("relay/" + files[1])
        let original = try Data(contentsOf: URL(fileURLWithPath: first))

        func expectRefused(_ words: String, status: Int32 = 65, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let result = try Self.sync(r, "b")
            #expect(result.status == status, "\(result.stderr)", sourceLocation: sourceLocation)
            #expect(result.stderr.contains(words), "\(result.stderr)", sourceLocation: sourceLocation)
            #expect(!(try Self.export(r, "b")).contains(#""title":"one""#), "nothing merged", sourceLocation: sourceLocation)
        }
        // A flipped byte in the payload.
        var flipped = original
        flipped[flipped.count - 20] ^= 1
        try flipped.write(to: URL(fileURLWithPath: first))
        try expectRefused("\(first) is damaged: it is not what was sealed (its authentication tag does not match)")
        // Cut short.
        try original.prefix(original.count - 5).write(to: URL(fileURLWithPath: first))
        try expectRefused("\(first) is damaged: it is \(original.count - 5) bytes long")
        // Segments swapped: each says where it belongs.
        let secondBytes = try Data(contentsOf: URL(fileURLWithPath: second))
        try secondBytes.write(to: URL(fileURLWithPath: first))
        try expectRefused("\(first) is damaged: it says it is replica")
        // From another sync.
        try Self.expectOK(r, ["create", "c.vein", "--schema", VeinRunner.exampleManifest, "--history", "--key-file", "kc"])
        try Self.expectOK(r, ["sync", "init", "c.vein", "--relay", "other", "--sync-key-file", "sync.key", "--key-file", "kc"])
        try Self.insert(r, "c", "elsewhere")
        try #require(try Self.sync(r, "c").status == 0)
        let foreign = try FileManager.default.subpathsOfDirectory(atPath: r.path("other")).first { $0.hasSuffix("segment-00000001.vseal") }!
        try Data(contentsOf: URL(fileURLWithPath: r.path("other/" + foreign))).write(to: URL(fileURLWithPath: first))
        try expectRefused("it belongs to another sync")
        // Sealed with another key.
        try original.write(to: URL(fileURLWithPath: first))
        try r.write("other.key", String(repeating: "ab", count: 32) + "\n", mode: 0o600)
        let wrong = try r.vein(["sync", "join", "w.vein", "--relay", "relay", "--sync-key-file", "other.key", "--plaintext"])
        #expect(wrong.status == 77, "\(wrong.stderr)")
        #expect(wrong.stderr.contains("snapshot.vseal was sealed with another key than the sync key in"), "\(wrong.stderr)")
        #expect(!r.exists("w.vein"))
        // Whole again: merged.
        let merged = try Self.sync(r, "b")
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(try Self.export(r, "b").contains(#""title":"two""#))

        // A relay restored from an older copy of itself: a segment b merged is gone.
        try FileManager.default.removeItem(atPath: second)
        let back = try Self.sync(r, "b")
        #expect(back.status == 65)
        #expect(back.stderr.contains("went back: replica") && back.stderr.contains("segment 2, already received, is missing or different"), "\(back.stderr)")
    }

    @Test func errorsSayWhatToDo() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try Self.expectOK(r, ["create", "n.vein", "--schema", VeinRunner.exampleManifest, "--key-file", "kn"])
        let noLog = try r.vein(["sync", "init", "n.vein", "--relay", "relay", "--sync-key-file", "s.key", "--key-file", "kn"])
        #expect(noLog.status == 65)
        #expect(noLog.stderr == "vein: error: n.vein keeps no change log, which sync sends\nhint: start one with 'vein history enable STORE'\n")
        let notSynced = try r.vein(["sync", "n.vein", "--key-file", "kn"])
        #expect(notSynced.status == 65)
        #expect(notSynced.stderr.hasPrefix("vein: error: n.vein is not synced\nhint: make it a replica with 'vein sync init"), "\(notSynced.stderr)")
        try Self.expectOK(r, ["history", "enable", "n.vein", "--key-file", "kn"])
        let scheme = try r.vein(["sync", "init", "n.vein", "--relay", "https://relay.example/vein", "--sync-key-file", "s.key", "--key-file", "kn"])
        #expect(scheme.status == 65)
        #expect(scheme.stderr.hasPrefix("vein: error: https://relay.example/vein is not a Vein sync relay: a relay is a folder (a path or a file:// URL) or a postgres:// URL\n"), "\(scheme.stderr)")
        try FileManager.default.createDirectory(atPath: r.path("relay"), withIntermediateDirectories: true)
        try r.write("relay/notes.txt", "mine")
        let busyFolder = try r.vein(["sync", "init", "n.vein", "--relay", "relay", "--sync-key-file", "s.key", "--key-file", "kn"])
        #expect(busyFolder.status == 65)
        #expect(busyFolder.stderr.hasPrefix("vein: error: relay is not a Vein sync relay: it holds other files (a relay needs a new or empty folder)\n"), "\(busyFolder.stderr)")
        try Self.expectOK(r, ["sync", "init", "n.vein", "--relay", "relay2", "--sync-key-file", "s.key", "--key-file", "kn"])
        let twice = try r.vein(["sync", "init", "n.vein", "--relay", "relay3", "--sync-key-file", "s.key", "--key-file", "kn"])
        #expect(twice.status == 65)
        #expect(twice.stderr.contains("n.vein is synced already, through "), "\(twice.stderr)")
        try Self.expectOK(r, ["create", "m.vein", "--schema", VeinRunner.exampleManifest, "--history", "--plaintext"])
        let inUse = try r.vein(["sync", "init", "m.vein", "--relay", "relay2", "--sync-key-file", "s.key"])
        #expect(inUse.status == 65)
        #expect(inUse.stderr.contains("relay2 already carries the sync "), "\(inUse.stderr)")
        try Self.expectOK(r, ["sync", "join", "j.vein", "--relay", "relay2", "--sync-key-file", "s.key", "--plaintext"])
        let exists = try r.vein(["sync", "join", "j.vein", "--relay", "relay2", "--sync-key-file", "s.key", "--plaintext"])
        #expect(exists.status == 73, "\(exists.stderr)")
        let notRelay = try r.vein(["sync", "join", "x.vein", "--relay", "relay", "--sync-key-file", "s.key", "--plaintext"])
        #expect(notRelay.stderr.hasPrefix("vein: error: relay is not a Vein sync relay: it has no vein-sync file\n"), "\(notRelay.stderr)")
        // Writes another program made cannot be sent.
        try Self.expectOK(r, ["query", "j.vein", #"insert Post(title: "t", content: "c")"#])
        let shell = try r.run("/usr/bin/sqlcipher", ["j.vein", #"UPDATE "Post" SET "views" = 3;"#])
        try #require(shell.status == 0, "\(shell.stderr)")
        try Self.expectOK(r, ["query", "j.vein", #"insert Post(title: "u", content: "c")"#])
        let outside = try r.vein(["sync", "j.vein"])
        #expect(outside.status == 65)
        #expect(outside.stderr.contains("j.vein cannot be synced: another program wrote to it"), "\(outside.stderr)")
    }

    /// The errors a sync meets after it began: a key file that is no key, another run holding the
    /// replica, a relay replaced by another sync's.
    @Test func laterErrorsSayWhatIsWrong() throws {
        let (r, _) = try Self.replicas()
        defer { r.cleanUp() }
        try r.write("junk.key", "not a key\n", mode: 0o600)
        try Self.expectOK(r, ["create", "n.vein", "--schema", VeinRunner.exampleManifest, "--history", "--plaintext"])
        let junk = try r.vein(["sync", "init", "n.vein", "--relay", "relay-n", "--sync-key-file", "junk.key"])
        #expect(junk.status == 65)
        #expect(junk.stderr == "vein: error: junk.key is not a sync key: a sync key is 64 hex digits (a raw 256-bit key), or one "
                + "wrapped under a passphrase\n", "\(junk.stderr)")
        #expect(!r.exists("relay-n"))
        try Self.expectOK(r, ["sync", "init", "n.vein", "--relay", "relay-n", "--sync-key-file", "n.key"])

        // Another run pushing this replica: its lock is held (flock(1) on the replica's .lock).
        try Self.insert(r, "a", "waits for the lock")
        try #require(try Self.sync(r, "a").status == 0)
        // a's folder: the one with a segment (b's, made when it joined, has none).
        let replica = try #require(try FileManager.default.contentsOfDirectory(atPath: r.path("relay"))
            .first { $0.count == 26 && r.exists("relay/\($0)/segment-00000001.vseal") })
        let held = try r.run("/usr/bin/flock", ["relay/\(replica)/.lock", VeinRunner.binary, "sync", "a.vein", "--key-file", "ka"])
        #expect(held.status == 75, "\(held.stderr)")
        #expect(held.stderr.hasPrefix("vein: error: another process is syncing this replica through /") && held.stderr.hasSuffix("/relay\n"
                + "hint: one run at a time pushes a replica; try again when it has finished\n"), "\(held.stderr)")

        // The relay replaced by another sync's.
        try FileManager.default.moveItem(atPath: r.path("relay"), toPath: r.path("relay-a"))
        try FileManager.default.moveItem(atPath: r.path("relay-n"), toPath: r.path("relay"))
        let other = try Self.sync(r, "a")
        #expect(other.status == 65)
        #expect(other.stderr.contains("carries the sync ") && other.stderr.contains(", not the one a.vein belongs to\n"), "\(other.stderr)")
        try FileManager.default.moveItem(atPath: r.path("relay"), toPath: r.path("relay-n"))
        try FileManager.default.moveItem(atPath: r.path("relay-a"), toPath: r.path("relay"))
    }

    /// One unique value claimed on two replicas: the earlier claim stays, the other row is set aside and
    /// listed, and `--keep` resolves it on every replica (docs/sync.md#unique-values).
    @Test(arguments: relays) func aUniqueValueClaimedTwiceIsSetAsideAndResolved(_ relay: Relay) throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        let location = try relay.make(r)
        try r.write("tags.json5", #"{ vein: 1, app: "t", version: "1.0.0", models: { Tag: { fields: { name: "string unique", color: "string?" } } } }"#)
        try Self.expectOK(r, ["create", "t1.vein", "--schema", "tags.json5", "--history", "--plaintext"])
        try Self.expectOK(r, ["sync", "init", "t1.vein", "--relay", location, "--sync-key-file", "sync.key"])
        try Self.expectOK(r, ["sync", "join", "t2.vein", "--relay", location, "--sync-key-file", "sync.key", "--plaintext"])
        try Self.expectOK(r, ["query", "t1.vein", #"insert Tag(name: "shared", color: "red")"#])
        try Self.expectOK(r, ["query", "t2.vein", #"insert Tag(name: "shared", color: "blue")"#])
        for store in ["t1", "t2", "t1"] { try Self.expectOK(r, ["sync", "\(store).vein"]) }
        for store in ["t1", "t2"] {
            let tags = try r.vein(["query", "\(store).vein", "Tag", "--format", "csv"])
            #expect(tags.stdout.contains("shared,red") && !tags.stdout.contains(",blue"), "\(store): \(tags.stdout)")
        }
        let listed = try r.vein(["sync", "conflicts", "t1.vein", "--json"])
        try #require(listed.status == 0, "\(listed.stderr)")
        let conflicts = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]], "\(listed.stdout)")
        let conflict = try #require(conflicts.first)
        let setAside = try #require(conflict["id"] as? String)
        #expect(conflicts.count == 1 && conflict["model"] as? String == "Tag")
        #expect(conflict["contested"] as? [String: String] == ["name": "shared"])
        #expect(conflict["fields"] as? [String: String] == ["name": "shared", "color": "blue"])
        #expect((conflict["heldBy"] as? [String])?.count == 1)
        let text = try r.vein(["sync", "conflicts", "t2.vein"])
        #expect(text.stdout == "Tag \(setAside) is set aside: its name \"shared\" is held by \((conflict["heldBy"] as? [String])?.first ?? "")\n"
                + "  name \"shared\", color \"blue\"\n", "\(text.stdout)")

        let unknown = try r.vein(["sync", "conflicts", "t1.vein", "--keep", "mine", "--id", "nothing"])
        #expect(unknown.status == 66)
        #expect(unknown.stderr == "vein: error: t1.vein has no conflict of a row nothing\nhint: 'vein sync conflicts STORE' lists the rows set aside\n",
                "\(unknown.stderr)")
        let alone = try r.vein(["sync", "conflicts", "t1.vein", "--keep", "mine"])
        #expect(alone.status == 64)
        #expect(alone.stderr.hasPrefix("vein: error: --keep and --id go together"), "\(alone.stderr)")

        // Resolved on t1 for the set-aside row; the next syncs carry it to t2.
        try Self.expectOK(r, ["sync", "conflicts", "t1.vein", "--keep", "theirs", "--id", setAside])
        for store in ["t1", "t2", "t1"] { try Self.expectOK(r, ["sync", "\(store).vein"]) }
        for store in ["t1", "t2"] {
            let tags = try r.vein(["query", "\(store).vein", "Tag", "--format", "csv"])
            #expect(tags.stdout.contains("shared,blue") && !tags.stdout.contains(",red"), "\(store): \(tags.stdout)")
            let none = try r.vein(["sync", "conflicts", "\(store).vein"])
            #expect(none.status == 0 && none.stderr == "no conflicts\n", "\(none.stderr)")
        }
    }

    /// A rotated sync key: the replica not yet given it is refused with a message that says what to do,
    /// takes it with the same command, and then reads both epochs (docs/sync.md#rotating-the-sync-key).
    @Test(arguments: relays) func aRotatedKeyIsTakenByTheOtherReplicas(_ relay: Relay) throws {
        let (r, _) = try Self.replicas(relay)
        defer { r.cleanUp() }
        try Self.insert(r, "a", "sealed under the first key")
        try #require(try Self.sync(r, "a").status == 0)
        let rotated = try r.vein(["sync", "rotate-key", "a.vein", "--sync-key-file", "sync-2.key"] + Self.key("a"))
        try #require(rotated.status == 0, "\(rotated.stderr)")
        #expect(rotated.stderr == "a.vein started sync key epoch 2; the new key is in sync-2.key: give it to every replica kept\n")
        #expect(try FileManager.default.attributesOfItem(atPath: r.path("sync-2.key"))[.posixPermissions] as? Int == 0o600)
        try Self.insert(r, "a", "sealed under the second key")
        try #require(try Self.sync(r, "a").status == 0)

        let behind = try Self.sync(r, "b")
        #expect(behind.status == 77)
        #expect(behind.stderr.hasPrefix("vein: error: the sync key was rotated: ")
                && behind.stderr.contains(" holds files of key epoch 2, and this replica holds the key of epoch 1\nhint: nothing sealed under "),
                "\(behind.stderr)")
        let taken = try r.vein(["sync", "rotate-key", "b.vein", "--sync-key-file", "sync-2.key", "--json"] + Self.key("b"))
        try #require(taken.status == 0, "\(taken.stderr)")
        #expect(taken.stdout.contains(#""adopted": true"#) && taken.stdout.contains(#""epoch": 2"#), "\(taken.stdout)")
        try #require(try Self.sync(r, "b").status == 0)
        #expect(try Self.export(r, "b") == Self.export(r, "a"))
        let status = try r.vein(["sync", "status", "b.vein", "--json"] + Self.key("b"))
        #expect(status.stdout.contains(#""keyEpoch": 2"#), "\(status.stdout)")
    }

    /// A machine with nothing else joins with the sync key wrapped under a passphrase, and syncs after.
    @Test(arguments: relays) func aWrappedSyncKeyJoinsAndIsKeptUnwrapped(_ relay: Relay) throws {
        let (r, location) = try Self.replicas(relay)
        defer { r.cleanUp() }
        let exported = try r.vein(["sync", "export-key", "a.vein", "--to", "carried.key"] + Self.key("a"), stdin: "correct horse battery\n")
        try #require(exported.status == 0, "\(exported.stderr)")
        #expect(try String(contentsOfFile: r.path("carried.key"), encoding: .utf8).hasPrefix("vein-backup-key 1\n"))
        let wrong = try r.vein(["sync", "join", "c.vein", "--relay", location, "--sync-key-file", "carried.key", "--plaintext"], stdin: "wrong horse battery\n")
        #expect(wrong.status == 77)
        #expect(wrong.stderr == "vein: error: the passphrase does not open the sync key in carried.key\n", "\(wrong.stderr)")
        #expect(!r.exists("c.vein") && !r.exists("c.vein.sync-key"))
        let joined = try r.vein(["sync", "join", "c.vein", "--relay", location, "--sync-key-file", "carried.key", "--plaintext"], stdin: "correct horse battery\n")
        try #require(joined.status == 0, "\(joined.stderr)")
        #expect(joined.stderr.contains("; the sync key is kept in c.vein.sync-key"), "\(joined.stderr)")
        try Self.insert(r, "a", "after c joined")
        try #require(try Self.sync(r, "a").status == 0)
        let synced = try r.vein(["sync", "c.vein"])
        #expect(synced.status == 0, "syncs without asking: \(synced.stderr)")
        #expect(try r.vein(["export", "c.vein"]).stdout.contains("after c joined"))
    }

    /// Without --sync-key-file the sync key lives in this user's keyring (kind "sync", found by the sync's
    /// id): a replica joined on the same machine needs nothing, and its export joins a machine whose
    /// keyring is new. Without a keyring, init says so and makes nothing.
    @Test func aSyncKeyInTheKeyringJoinsWithNothingGiven() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        let vein = VeinRunner.binary
        let first = try r.run(VeinRunner.withSecretService, ["bash", "-c", """
            set -e
            '\(vein)' create a.vein --schema '\(VeinRunner.exampleManifest)' --history --plaintext --quiet
            '\(vein)' sync init a.vein --relay relay --quiet
            '\(vein)' sync join b.vein --relay relay --plaintext --quiet
            '\(vein)' query a.vein 'insert Post(title: "through the keyring", content: "c")' >/dev/null
            '\(vein)' sync a.vein --quiet
            '\(vein)' sync b.vein --quiet
            '\(vein)' export b.vein | grep -c '"through the keyring"'
            secret-tool search --all kind sync 2>&1 | grep -c '^attribute.sync = '
            printf 'a long enough passphrase\\na long enough passphrase\\n' | '\(vein)' sync export-key a.vein --to carried.key 2>/dev/null
            """], environment: ["DBUS_SESSION_BUS_ADDRESS": ""])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == "1\n1\n", "b merged a's commit with the key from the keyring, which holds one sync item: \(first.stdout)")
        #expect(!r.exists("a.vein.sync-key") && !r.exists("b.vein.sync-key"))
        let fresh = try r.run(VeinRunner.withSecretService, ["bash", "-c", """
            '\(vein)' sync join c.vein --relay relay --plaintext; echo "exit $?"
            printf 'a long enough passphrase\\n' | '\(vein)' sync join c.vein --relay relay --sync-key-file carried.key --plaintext --quiet || exit 1
            '\(vein)' export c.vein | grep -c '"through the keyring"'
            """], environment: ["DBUS_SESSION_BUS_ADDRESS": ""])
        #expect(fresh.status == 0, "\(fresh.stderr)")
        #expect(fresh.stdout == "exit 69\n1\n", "\(fresh.stdout)")
        #expect(fresh.stderr.contains("vein: error: no sync key was given, and this user's keyring holds none of the sync "), "\(fresh.stderr)")
        #expect(fresh.stderr.contains("hint: give it with --sync-key-file"), "\(fresh.stderr)")
        // No keyring at all.
        try Self.expectOK(r, ["create", "n.vein", "--schema", VeinRunner.exampleManifest, "--history", "--plaintext"])
        let none = try r.vein(["sync", "init", "n.vein", "--relay", "relay2"])
        #expect(none.status == 69)
        #expect(none.stderr.hasPrefix("vein: error: no sync key file was given, and the keyring cannot be reached: "), "\(none.stderr)")
        #expect(none.stderr.contains("hint: give the sync key with --sync-key-file FILE"), "\(none.stderr)")
        #expect(!r.exists("relay2"), "nothing made")
    }

    /// `vein sync --watch` sends a commit soon after it is made, and merges the others' when they appear.
    @Test(arguments: relays) func aWatchingSyncSendsAndReceives(_ relay: Relay) throws {
        let (r, location) = try Self.replicas(relay)
        defer { r.cleanUp() }
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: VeinRunner.binary)
        watcher.arguments = ["sync", r.path("b.vein"), "--watch", "--quiet", "--key-file", r.path("kb")]
        watcher.environment = VeinRunner.isolatedEnvironment
        try watcher.run()
        defer { ContinuousBackupCommandTests.stop(watcher) }
        /// Whether `condition` holds within ten seconds (looked at every 50 ms).
        func eventually(_ condition: () throws -> Bool) rethrows -> Bool {
            for _ in 0..<200 {
                if try condition() { return true }
                usleep(50_000)
            }
            return try condition()
        }
        try Self.insert(r, "a", "sent by a")
        try #require(try Self.sync(r, "a").status == 0)
        #expect(try eventually { try Self.export(r, "b").contains("sent by a") }, "the watcher merges a's segment")
        try Self.insert(r, "b", "made on b")
        #expect(try eventually { try Self.segmentCount(r, location) == 2 }, "the watcher sends b's commit")
        try #require(try Self.sync(r, "a").status == 0)
        #expect(try Self.export(r, "a").contains("made on b"))
    }

    /// kill -9 at random moments of `vein sync` on both replicas: the runs after go on, and the replicas
    /// end equal, with every commit once.
    @Test(arguments: relays) func aKilledSyncLosesAndRepeatsNothing(_ relay: Relay) throws {
        let (r, location) = try Self.replicas(relay)
        defer { r.cleanUp() }
        var delays = KillDelays()
        let blob = String(repeating: "long text of a post; ", count: 300)
        var limits: [String: UInt64] = [:]
        for replica in ["a", "b"] { limits[replica] = try BackupCrashTests.duration(r, ["sync", "\(replica).vein"] + Self.key(replica)) }
        var kills = 0, round = 0, inserted = 1
        while kills < 24 && round < 80 {
            defer { round += 1 }
            for replica in ["a", "b"] {
                try Self.expectOK(r, ["query", "\(replica).vein", #"insert Post(title: "\#(replica)\#(round)", content: "\#(blob)")"#] + Self.key(replica))
                inserted += 1
                let limit = limits[replica]!
                if try BackupCrashTests.killed(r, ["sync", "\(replica).vein"] + Self.key(replica), after: delays.next(below: limit)) {
                    kills += 1
                    limits[replica] = limit * 5 / 4
                } else {
                    limits[replica] = max(1_000, limit * 3 / 4)
                }
            }
        }
        #expect(kills >= 24, "syncs killed while they ran: \(kills) of \(2 * round)")
        print("sync crash test: \(kills) syncs killed while they ran, of \(2 * round)")
        for replica in ["a", "b", "a"] {
            let result = try Self.sync(r, replica)
            #expect(result.status == 0, "the run after killed ones goes on: \(result.stderr)")
        }
        let a = try Self.export(r, "a")
        #expect(a == (try Self.export(r, "b")))
        #expect(a.components(separatedBy: #""title":"#).count - 1 == inserted, "every commit once")
        for replica in ["a", "b"] { try Self.expectOK(r, ["verify", "\(replica).vein"] + Self.key(replica)) }
        let leftovers = try Self.relayContents(r, location).map(\.0).filter { $0.contains("sealing") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    /// `vein sync rotate-key` killed at random moments: the same command run again finishes the rotation
    /// (publishing the key kept, or recording the key published), the other replica takes the key, and
    /// the replicas still converge.
    @Test(arguments: relays) func aKilledRotationFinishesWhenRunAgain(_ relay: Relay) throws {
        let (r, _) = try Self.replicas(relay)
        defer { r.cleanUp() }
        var delays = KillDelays()
        var limit = try BackupCrashTests.duration(r, ["sync", "rotate-key", "a.vein", "--sync-key-file", "timing.key"] + Self.key("a"))
        try Self.expectOK(r, ["sync", "rotate-key", "b.vein", "--sync-key-file", "timing.key"] + Self.key("b"))
        var kills = 0, round = 0
        while kills < 8 && round < 40 {
            defer { round += 1 }
            let file = "round-\(round).key"
            if try BackupCrashTests.killed(r, ["sync", "rotate-key", "a.vein", "--sync-key-file", file] + Self.key("a"), after: delays.next(below: limit)) {
                kills += 1
                limit = limit * 5 / 4
            } else {
                limit = max(1_000, limit * 3 / 4)
            }
            let again = try Self.expectOK(r, ["sync", "rotate-key", "a.vein", "--sync-key-file", file, "--json"] + Self.key("a"))
            #expect(again.stdout.contains(#""epoch": \#(round + 3)"#), "round \(round): \(again.stdout)")
            try Self.insert(r, "a", "at epoch \(round + 3)")
            try Self.expectOK(r, ["sync", "a.vein"] + Self.key("a"))
            try Self.expectOK(r, ["sync", "rotate-key", "b.vein", "--sync-key-file", file] + Self.key("b"))
            try Self.expectOK(r, ["sync", "b.vein"] + Self.key("b"))
        }
        #expect(kills >= 8, "rotations killed while they ran: \(kills) of \(round)")
        print("rotation crash test: \(kills) rotations killed while they ran, of \(round)")
        #expect(try Self.export(r, "a") == Self.export(r, "b"))
    }
}

/// Random moments to kill a command at, the same in every run (a linear congruential generator).
struct KillDelays {
    private var seed: UInt64 = 20261207

    mutating func next(below limit: UInt64) -> useconds_t {
        seed = seed &* 6364136223846793005 &+ 1442695040888963407
        return useconds_t((seed >> 33) % limit)
    }
}

extension ISO8601DateFormatter {
    /// The timestamps Vein prints: ISO 8601 in UTC with a fraction of a second.
    static var withFraction: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}
