import Foundation
import Testing

/// `vein history` through the built binary (docs/history.md): what `vein query` and `vein import` commit,
/// a write made by another program, the filters, the formats, and the errors' words.
@Suite struct HistoryCommandTests {
    static func store() throws -> VeinRunner {
        let r = try VeinRunner()
        let created = try r.vein(["create", "h.vein", "--schema", VeinRunner.exampleManifest, "--plaintext", "--history"])
        try #require(created.status == 0, "\(created.stderr)")
        #expect(created.stdout.hasSuffix(", keeping a change log\n"))
        return r
    }

    /// The id `vein query` prints for an insert.
    static func insert(_ r: VeinRunner, _ statement: String) throws -> String {
        let result = try r.vein(["query", "h.vein", statement])
        try #require(result.status == 0, "\(result.stderr)")
        return String(result.stdout.split(separator: " ")[2].prefix(26))
    }

    @Test func whatQueriesCommitIsListedInOrderAndNarrowedToAnObject() throws {
        let r = try Self.store()
        defer { r.cleanUp() }
        let post = try Self.insert(r, #"insert Post(title: "Hello", content: "c")"#)
        _ = try Self.insert(r, #"insert Attachment(name: "a.png", fileType: .png, sizeMiB: 0.5, post: #id("\#(post)"))"#)
        #expect(try r.vein(["query", "h.vein", #"update Post where title == "Hello" set views = views + 1"#]).status == 0)
        #expect(try r.vein(["query", "h.vein", #"delete Post where title == "Hello""#]).status == 0)

        let history = try r.vein(["history", "h.vein"])
        #expect(history.status == 0, "\(history.stderr)")
        let lines = history.stdout.split(separator: "\n").map(String.init)
        #expect(lines.filter { !$0.hasPrefix("  ") }.map { $0.split(separator: " ").first.map(String.init) ?? "" } == ["1", "2", "3", "4"])
        #expect(lines.filter { !$0.hasPrefix("  ") }.allSatisfy { $0.contains("  vein query  (0.0.1)") })
        #expect(lines.contains("  insert Post \(post)  title: \"Hello\", content: \"c\", views: 0, publishedAt: null"))
        #expect(lines.contains("  update Post \(post)  views: 1"))
        #expect(lines.contains("  delete Post \(post)"))
        #expect(lines.contains { $0.hasPrefix("  insert Attachment ") && $0.hasSuffix("post: \"\(post)\", order in Post.attachments: 1") })
        #expect(lines.contains { $0.hasPrefix("  delete Attachment ") }, "the cascade is in the log")

        let life = try r.vein(["history", "h.vein", "--id", post, "--format", "jsonl"])
        let tokens = life.stdout.split(separator: "\n").map { line -> Int in
            let range = line.range(of: #""token":\d+"#, options: .regularExpression)!
            return Int(line[range].dropFirst(8))!
        }
        #expect(tokens == [1, 3, 4])
        let json = try r.vein(["history", "h.vein", "--since", "3", "--model", "Attachment", "--json"])
        let parsed = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as! [[String: Any]]
        #expect(parsed.map { $0["token"] as! Int } == [4])
        let change = (parsed[0]["changes"] as! [[String: Any]])[0]
        #expect(change["change"] as? String == "delete" && change["model"] as? String == "Attachment")
    }

    @Test func aWriteByAnotherProgramIsNamedWhereItHappened() throws {
        let r = try Self.store()
        defer { r.cleanUp() }
        _ = try Self.insert(r, #"insert Post(title: "a", content: "c")"#)
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/usr/bin/sqlcipher")
        shell.arguments = [r.path("h.vein"), #"UPDATE "Post" SET "views" = 7"#]
        try shell.run()
        shell.waitUntilExit()
        try #require(shell.terminationStatus == 0)
        _ = try Self.insert(r, #"insert Post(title: "b", content: "c")"#)
        let lines = try r.vein(["history", "h.vein"]).stdout.split(separator: "\n").filter { !$0.hasPrefix("  ") }
        #expect(lines.count == 3)
        #expect(lines[1].hasPrefix("2  ") && lines[1].hasSuffix("  -  (0.0.1)  1 row write by another program, not in the log"))
        #expect(try r.vein(["verify", "h.vein"]).status == 0)
    }

    /// `vein history purge --id`: the object's values are gone from the log; what happened and when stay.
    @Test func purgeForgetsOneObjectsValues() throws {
        let r = try Self.store()
        defer { r.cleanUp() }
        let post = try Self.insert(r, #"insert Post(title: "private words", content: "private too")"#)
        let other = try Self.insert(r, #"insert Post(title: "public", content: "c")"#)
        #expect(try r.vein(["query", "h.vein", #"update Post where title == "private words" set title = "more private""#]).status == 0)
        #expect(try r.vein(["query", "h.vein", #"delete Post where title == "more private""#]).status == 0)
        let purge = try r.vein(["history", "purge", "h.vein", "--id", post])
        #expect(purge.status == 0, "\(purge.stderr)")
        #expect(purge.stdout == "removed the values of \(post) from 2 changes in 2 transactions of the change log\n")
        let history = try r.vein(["history", "h.vein"]).stdout
        #expect(!history.contains("private"), "\(history)")
        #expect(history.contains("  insert Post \(post)\n") && history.contains("  update Post \(post)\n") && history.contains("  delete Post \(post)"))
        #expect(history.contains("  insert Post \(other)  title: \"public\""), "another object's values stay")
        let raw = try r.run("/usr/bin/sqlcipher", [r.path("h.vein"), #"SELECT count(*) FROM "_vein_changes" WHERE instr("changes", CAST('private' AS BLOB)) > 0"#])
        #expect(raw.stdout == "0\n", "no byte of the values is left in the log")
        #expect(try r.vein(["history", "purge", "h.vein", "--id", post]).stdout.hasPrefix("removed the values of \(post) from 0 changes"))
        #expect(try r.vein(["verify", "h.vein"]).status == 0)
    }

    /// A size policy keeps the newest transactions within its bytes, whole, and the newest always.
    @Test func aSizePolicyKeepsTheNewestChangesWithinItsBytes() throws {
        let r = try Self.store()
        defer { r.cleanUp() }
        let set = try r.vein(["history", "retention", "h.vein", "--size", "3K"])
        #expect(set.stdout == "h.vein keeps the newest transactions within 3072 bytes of changes\n", "\(set.stdout)\(set.stderr)")
        let text = String(repeating: "x", count: 900)
        for i in 0..<8 { _ = try Self.insert(r, #"insert Post(title: "p\#(i)", content: "\#(text)")"#) }
        let sizes = try r.run("/usr/bin/sqlcipher", [r.path("h.vein"), #"SELECT total(length("changes")), (SELECT "value" FROM "_vein_meta" WHERE "key" = 'historyBytes'), min("token"), max("token") FROM "_vein_changes""#])
        let fields = sizes.stdout.trimmingCharacters(in: .newlines).split(separator: "|").map(String.init)
        try #require(fields.count == 4, "\(sizes.stdout)\(sizes.stderr)")
        #expect(Double(fields[0])! <= 3072 && Double(fields[0])! > 2000, "the log is within the policy: \(fields)")
        #expect(Double(fields[0]) == Double(fields[1]), "the kept total is the log's: \(fields)")
        #expect(fields[3] == "8" && fields[2] == "6", "the newest three of about a kilobyte each: \(fields)")
        #expect(try r.vein(["history", "h.vein"]).stdout.hasPrefix("(pruned through token 5)"))
        // One transaction larger than the policy is kept: the newest always is.
        _ = try Self.insert(r, #"insert Post(title: "big", content: "\#(String(repeating: "y", count: 5000))")"#)
        #expect(try r.vein(["history", "h.vein", "--since", "8"]).stdout.contains("title: \"big\""))
        let bad = try r.vein(["history", "retention", "h.vein", "--size", "lots"])
        #expect(bad.status == 64)
        #expect(bad.stderr.hasPrefix(#"vein: error: --size takes a whole number of bytes from 1, with K, M or G for KiB, MiB or GiB, not "lots""#))
    }

    @Test func errorsSayWhatToDo() throws {
        let r = try Self.store()
        defer { r.cleanUp() }
        let since = try r.vein(["history", "h.vein", "--since", "yesterday"])
        #expect(since.status == 64)
        #expect(since.stderr == """
            vein: error: --since takes a token (a whole number, as 'vein history' prints) or a time (ISO 8601 with Z or an offset, such as 2026-12-01T09:30:00Z), not "yesterday"
            hint: see 'vein help history'

            """)
        let model = try r.vein(["history", "h.vein", "--model", "Pots"])
        #expect(model.status == 64 && model.stderr.hasPrefix("vein: error: h.vein has no model \"Pots\"\n"))
        #expect(try r.vein(["create", "plain.vein", "--schema", VeinRunner.exampleManifest, "--plaintext"]).status == 0)
        let none = try r.vein(["history", "plain.vein"])
        #expect(none.status == 65)
        #expect(none.stderr == """
            vein: error: plain.vein keeps no change log
            hint: start one with 'vein history enable STORE' (or create the store with --history)

            """)
    }

    @Test func pruningRemovesTheOldestAndLaterReadsSayTheyExpired() throws {
        let r = try Self.store()
        defer { r.cleanUp() }
        for title in ["a", "b", "c", "d"] { _ = try Self.insert(r, #"insert Post(title: "\#(title)", content: "c")"#) }
        let pruned = try r.vein(["history", "prune", "h.vein", "--before", "3"])
        #expect(pruned.status == 0 && pruned.stdout == "removed 2 transactions from the change log\n", "\(pruned.stderr)")
        let lines = try r.vein(["history", "h.vein"]).stdout.split(separator: "\n").filter { !$0.hasPrefix("  ") }
        #expect(lines.first == "(pruned through token 2)")
        #expect(lines.dropFirst().map { $0.prefix(3) } == ["3  ", "4  "])
        #expect(try r.vein(["history", "h.vein", "--since", "2", "--format", "jsonl"]).stdout.split(separator: "\n").count == 2)
        let expired = try r.vein(["history", "h.vein", "--since", "1"])
        #expect(expired.status == 65)
        #expect(expired.stderr == """
            vein: error: history since token 1 expired: the log was pruned through token 2, so what came after token 1 is no longer all there
            hint: read the whole log again ('vein history STORE'), and go on from its last token

            """)
        let kept = try r.vein(["history", "prune", "h.vein", "--keep", "1", "--json"])
        #expect(kept.stdout.contains("\"removed\": 1"), "\(kept.stdout)")
        #expect(try r.vein(["history", "prune", "h.vein"]).stderr.hasPrefix("vein: error: name what to remove: --before TOKEN|TIME or --keep N (one of them)\n"))
        #expect(try r.vein(["verify", "h.vein"]).status == 0)
    }

    @Test func aDeleteShowsTheValuesItKept() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try r.write("notes.json5", """
            { vein: 1, app: "t.notes", version: "1.0.0", models: {
                Note: { fields: { title: { type: "string", preserveValueOnDeletion: true }, body: "string" } } } }
            """)
        try #require(try r.vein(["create", "n.vein", "--schema", "notes.json5", "--plaintext", "--history"]).status == 0)
        let schema = try r.vein(["schema", "n.vein"]).stdout
        #expect(schema.contains("  title  string preserved on deletion\n"), "\(schema)")
        #expect(try r.vein(["schema", "n.vein", "--swift"]).stdout.contains("@Attribute(.preserveValueOnDeletion)\n"))
        let inserted = try r.vein(["query", "n.vein", #"insert Note(title: "Groceries", body: "milk")"#])
        let id = String(inserted.stdout.split(separator: " ")[2].prefix(26))
        #expect(try r.vein(["query", "n.vein", #"delete Note where title == "Groceries""#]).status == 0)
        let lines = try r.vein(["history", "n.vein"]).stdout.split(separator: "\n").map(String.init)
        #expect(lines.last == "  delete Note \(id)  title: \"Groceries\"")
    }

    @Test func enablingStartsALogOnAnExistingStore() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try #require(try r.vein(["create", "h.vein", "--schema", VeinRunner.exampleManifest, "--plaintext"]).status == 0)
        _ = try Self.insert(r, #"insert Post(title: "before", content: "c")"#)
        #expect(try r.vein(["info", "h.vein"]).stdout.contains("\nhistory     not kept ('vein history enable' starts it)\n"))
        let enabled = try r.vein(["history", "enable", "h.vein"])
        #expect(enabled.status == 0 && enabled.stdout == "h.vein keeps a change log from now on\n", "\(enabled.stderr)")
        let after = try Self.insert(r, #"insert Post(title: "after", content: "c")"#)
        let lines = try r.vein(["history", "h.vein"]).stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2 && lines[1].hasPrefix("  insert Post \(after)  title: \"after\""), "what came before is not in the log: \(lines)")
        #expect(try r.vein(["info", "h.vein"]).stdout.contains("\nhistory     kept, 1 transaction, last token 1\n"))
        #expect(try r.vein(["verify", "h.vein"]).status == 0)
        let again = try r.vein(["history", "enable", "h.vein"])
        #expect(again.status == 65 && again.stderr == "vein: error: h.vein keeps a change log already\n")
    }

    @Test func retentionIsShownAndSet() throws {
        let r = try Self.store()
        defer { r.cleanUp() }
        #expect(try r.vein(["history", "retention", "h.vein"]).stdout == "h.vein keeps transactions of the last 7 days\n")
        for title in ["a", "b", "c"] { _ = try Self.insert(r, #"insert Post(title: "\#(title)", content: "c")"#) }
        let set = try r.vein(["history", "retention", "h.vein", "--count", "2"])
        #expect(set.status == 0 && set.stdout == "h.vein keeps the newest 2 transactions\n", "\(set.stderr)")
        let lines = try r.vein(["history", "h.vein"]).stdout.split(separator: "\n").filter { !$0.hasPrefix("  ") }
        #expect(lines == ["(pruned through token 1)"] + lines.dropFirst() && lines.count == 3, "\(lines)")
        #expect(try r.vein(["history", "retention", "h.vein", "--json"]).stdout.contains("\"retention\": \"count:2\""))
        let bad = try r.vein(["history", "retention", "h.vein", "--days", "0"])
        #expect(bad.status == 64 && bad.stderr.hasPrefix("vein: error: --days takes a whole number from 1, not \"0\"\n"))
    }
}
