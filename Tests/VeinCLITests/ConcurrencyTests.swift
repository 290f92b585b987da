import Foundation
import Testing
import Vein
@testable import VeinCLI

/// Several `vein` processes on one store at once, as several shells would run them: no update is lost, no
/// relationship is left half-written, a backup does not stop writers, and a command whose store was
/// migrated under it says so.
@Suite struct ConcurrencyTests {
    struct WorkerTally {
        var succeeded = 0
        var busy = 0
        var other: [String] = []
    }

    /// Runs `workers` shells at once, each running the statement in its file `statement.N` until it has
    /// succeeded `times` times: exit 0 counts, exit 75 (busy or conflict) is retried, any other status is
    /// recorded and ends that worker.
    func runShells(_ r: VeinRunner, workers: Int, times: Int, statement: (Int) -> String) throws -> [WorkerTally] {
        var script = #"""
            worker() {
              ok=0; busy=0; : >"status.$1"; : >"stderr.$1"; statement=$(cat "statement.$1")
              while [ "$ok" -lt "$2" ]; do
                "$VEIN" query b.vein "$statement" --key-file k >/dev/null 2>>"stderr.$1"
                rc=$?
                if [ $rc -eq 0 ]; then ok=$((ok + 1)); elif [ $rc -eq 75 ]; then busy=$((busy + 1)); else echo "$rc" >>"status.$1"; break; fi
                [ "$busy" -gt 1000 ] && break
              done
              echo "$ok $busy" >"tally.$1"
            }

            """#
        for w in 0..<workers {
            try r.write("statement.\(w)", statement(w))
            script += "worker \(w) \(times) &\n"
        }
        script += "wait\n"
        let result = try r.run("/bin/sh", ["-c", script], environment: ["VEIN": VeinRunner.binary])
        try #require(result.status == 0, "\(result.stderr)")
        return try (0..<workers).map { w in
            let tally = try String(contentsOfFile: r.path("tally.\(w)"), encoding: .utf8)
                .split(whereSeparator: \.isWhitespace).map { Int($0) ?? -1 }
            var t = WorkerTally(succeeded: tally[0], busy: tally[1])
            t.other = try String(contentsOfFile: r.path("status.\(w)"), encoding: .utf8).split(separator: "\n").map(String.init)
            if !t.other.isEmpty { t.other.append(try String(contentsOfFile: r.path("stderr.\(w)"), encoding: .utf8)) }
            return t
        }
    }

    /// Item 2 of issue 10: two, three and four shells running `set views = views + 1` at once. Every call
    /// exits 0 or 75 (retried), and the counter ends at exactly the number of calls that exited 0.
    @Test func parallelIncrementsSumExactly() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        try #require(try r.query(#"insert Post(title: "counter", content: "c")"#).status == 0)
        var expected = 0
        for (workers, times) in [(2, 100), (3, 30), (4, 20)] {
            let tallies = try runShells(r, workers: workers, times: times) { _ in #"update Post where title == "counter" set views = views + 1"# }
            for t in tallies { #expect(t.other.isEmpty, "exit statuses other than 0 and 75: \(t.other)") }
            expected += tallies.map(\.succeeded).reduce(0, +)
            let views = try JSONParser.parse(try r.query(#"Post where title == "counter""#, ["--format", "jsonl"]).stdout).objectValue?["views"]
            #expect(views == .int(Int64(expected)), "\(workers) workers × \(times): \(tallies.map { ($0.succeeded, $0.busy) })")
            print("parallel increments: \(workers) processes × \(times), exits 0/75 per process: \(tallies.map { "\($0.succeeded)/\($0.busy)" }), views \(views.map { "\($0)" } ?? "nil") of \(expected)")
        }
    }

    /// Item 3 of issue 10: two shells inserting 60 attachments each for the same post. The post lists all
    /// 120 and the store verifies (the owner's side is read and written under one write lock).
    @Test func parallelInsertsIntoOneRelationshipKeepBothSides() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        let inserted = try r.query(#"insert Post(title: "owner", content: "c")"#)
        let postID = try #require(inserted.stdout.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        let tallies = try runShells(r, workers: 2, times: 60) { w in
            #"insert Attachment(name: "w\#(w)", fileType: .png, sizeMiB: 1, post: #id("\#(postID)"))"#
        }
        for t in tallies { #expect(t.other.isEmpty, "exit statuses other than 0 and 75: \(t.other)") }
        let total = tallies.map(\.succeeded).reduce(0, +)
        #expect(total == 120)
        #expect(try r.query("count Attachment").stdout == "\(total)\n")
        let listed = try JSONParser.parse(try r.query(#"get #id("\#(postID)")"#, ["--format", "jsonl"]).stdout).objectValue?["attachments"]?.arrayValue
        #expect(listed?.count == total)
        #expect(try r.query(#"count Post(#id("\#(postID)")).attachments"#).stdout == "\(total)\n")
        let verify = try r.vein(["verify", "b.vein", "--key-file", "k"])
        #expect(verify.status == 0, "\(verify.stdout) \(verify.stderr)")
        print("parallel relationship inserts: 2 processes × 60, exits 0/75 per process: \(tallies.map { "\($0.succeeded)/\($0.busy)" }), post lists \(listed?.count ?? -1)")
    }

    /// `vein verify` while another process inserts attachments of one post: verify compares tables with
    /// each other, so it reads them all in one snapshot; otherwise a commit between two of its reads looks
    /// like a broken relationship (exit 65 on a sound store).
    @Test func verifyWhileWritersInsertSeesOneState() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        let postID = try seedLongRelationship(r)
        let result = try whileInserting(r, postID, reader: #""$0" verify b.vein -q >read.out 2>&1 || { echo "verify exited $?"; cat read.out; }"#)
        #expect(result.stdout.isEmpty, "\(result.stdout)")
        #expect(try r.vein(["verify", "b.vein", "-q"]).status == 0)
    }

    /// The same for `vein export`: each export, taken while attachments are inserted, imports (import
    /// refuses a file whose two sides of a relationship disagree).
    @Test func exportWhileWritersInsertHoldsOneState() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        let postID = try seedLongRelationship(r)
        let result = try whileInserting(r, postID, reader: #"""
            "$0" export b.vein -o "e$n.json" || echo "export exited $?"
            "$0" import "i$n.vein" "e$n.json" --create --schema "$1" --plaintext -q >read.out 2>&1 || { echo "import $n exited $?"; head -3 read.out; }
            """#)
        #expect(result.stdout.isEmpty, "\(result.stdout)")
    }

    /// A plaintext store whose first post has 3,000 attachments, followed by 10,000 other posts (reading
    /// both sides of the relationship takes a while: the attachments are read after all the posts); the
    /// first post's id.
    func seedLongRelationship(_ r: VeinRunner) throws -> String {
        try #require(try r.vein(["create", "b.vein", "--schema", VeinRunner.exampleManifest, "--plaintext"]).status == 0)
        let context = ObjectContext(store: try Store.open(r.path("b.vein"), keys: KeyOptions(keyring: nil)))
        let post = try context.insert("Post", ["title": .string("owner"), "content": .string("c")])
        for i in 0..<3_000 {
            try context.insert("Attachment", ["name": .string("seed \(i)"), "fileType": .string("png"), "sizeMiB": .double(1),
                                              "post": .string(post.id)])
        }
        for i in 0..<10_000 { try context.insert("Post", ["title": .string("filler \(i)"), "content": .string("c")]) }
        try context.save()
        return post.id
    }

    /// Runs `reader` (shell text; `$0` is vein, `$1` the example manifest, `$n` the round) 5 times while
    /// another process inserts 25 attachments of the post one by one.
    func whileInserting(_ r: VeinRunner, _ postID: String, reader: String) throws -> VeinRunner.Result {
        try r.run("/bin/sh", ["-c", """
            ( i=0; while [ $i -lt 25 ]; do "$0" query b.vein 'insert Attachment(name: "w", fileType: .png, sizeMiB: 1, post: #id("\(postID)"))' >/dev/null || echo "insert exited $?"; i=$((i+1)); done ) &
            writer=$!
            n=0; while [ $n -lt 5 ]; do
            \(reader)
            n=$((n+1)); done
            wait $writer
            """, VeinRunner.binary, VeinRunner.exampleManifest])
    }

    /// Item 19 of issue 10: while a backup holds its read snapshot (held open by a test gate), another
    /// process inserts and commits at once (it used to wait 5 s behind the backup and exit 75), and the
    /// backup holds exactly the rows committed before it began.
    @Test func writersCommitWhileABackupRuns() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        for i in 1...5 { try #require(try r.query(#"insert Post(title: "\#(i)", content: "c")"#).status == 0) }
        let gate = r.path("gate")
        let backup = ResultBox()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            backup.set(try? r.vein(["backup", "b.vein", "copy.vein", "--key-file", "k"], environment: ["VEIN_TEST_BACKUP_GATE": gate]))
            done.signal()
        }
        var waited = 0
        while !r.exists("gate.reached") && waited < 3_000 && backup.get() == nil { usleep(10_000); waited += 1 }
        let reached = r.exists("gate.reached")
        var writes: [Int32] = []
        if reached {
            for i in 6...8 {
                let result = try r.query(#"insert Post(title: "\#(i)", content: "c")"#)
                writes.append(result.status)
                if result.status != 0 { break }  // each refused write used to cost the 5 s busy timeout
            }
        }
        _ = FileManager.default.createFile(atPath: gate, contents: nil)
        done.wait()
        #expect(reached, "the backup never took its snapshot: \(backup.get().map { "\($0.status) \($0.stderr)" } ?? "")")
        #expect(writes == [0, 0, 0], "writes during the backup exited \(writes)")
        let result = try #require(backup.get())
        #expect(result.status == 0, "\(result.stderr)")
        let copy = try Store.open(r.path("copy.vein"), keys: KeyOptions(keyFile: r.path("k"), keyring: nil))
        let titles = try copy.database.rows("SELECT title FROM Post").compactMap { $0[0].string.flatMap { Int($0) } }.sorted()
        #expect(titles == [1, 2, 3, 4, 5])
        #expect(try r.query("count Post").stdout == "8\n")
        #expect(try r.vein(["verify", "copy.vein", "--key-file", "k", "-q"]).status == 0)
    }

    /// Item 14 of issue 10: a process that opened the store at 0.0.2 writes after another process migrated
    /// it to 0.1.0 (which drops Tag): a schema change, exit 75, instead of "SQLite: no such table: Tag".
    @Test func aStoreMigratedUnderAWriterIsASchemaChange() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        let plan = VeinRunner.packageRoot.appendingPathComponent("examples/migration/plan.json5").path
        try #require(try r.vein(["create", "b.vein", "--schema", VeinRunner.exampleManifest, "--plaintext"]).status == 0)
        try #require(try r.vein(["migrate", "b.vein", "--plan", plan, "--to", "0.0.2"]).status == 0)
        let store = try Store.open(r.path("b.vein"), keys: KeyOptions(keyring: nil))
        let context = ObjectContext(store: store)
        let migrated = try r.vein(["migrate", "b.vein", "--plan", plan])
        try #require(migrated.status == 0, "\(migrated.stderr)")

        _ = try context.insert("Tag", ["label": .string("new")])
        var caught: Error?
        do { try context.save() } catch { caught = error }
        #expect(caught as? StoreError == .schemaChanged(r.path("b.vein"), from: "0.0.2", to: "0.1.0"), "\(String(describing: caught))")
        let report = ErrorReporting.report(try #require(caught))
        #expect(report.messages == ["another process migrated \(r.path("b.vein")) from schema 0.0.2 to 0.1.0 while this command ran; nothing was written"])
        #expect(report.hint == "run the command again: it will use the store's new schema")
        #expect(report.exitCode == .busy)
        // Reads too: a statement, an export, a backup, info, verify (which would report the new tables as
        // damage against the old schema).
        #expect(throws: StoreError.schemaChanged(r.path("b.vein"), from: "0.0.2", to: "0.1.0")) {
            _ = try QueryRunner(context: ObjectContext(store: store)).run("count Tag")
        }
        #expect(throws: StoreError.schemaChanged(r.path("b.vein"), from: "0.0.2", to: "0.1.0")) {
            let sink = try #require(FileHandle(forWritingAtPath: "/dev/null"))
            _ = try StoreExporter(store: store).export(to: sink.fileDescriptor)
        }
        #expect(throws: StoreError.schemaChanged(r.path("b.vein"), from: "0.0.2", to: "0.1.0")) {
            _ = try StoreCopier.copy(store, to: r.path("copy.vein"), protection: .plaintext)
        }
        #expect(!r.exists("copy.vein"))
        #expect(throws: StoreError.schemaChanged(r.path("b.vein"), from: "0.0.2", to: "0.1.0")) { _ = try StoreInfo(store) }
        #expect(throws: StoreError.schemaChanged(r.path("b.vein"), from: "0.0.2", to: "0.1.0")) { _ = try StoreVerifier.verify(store) }
    }

    /// A save that finds a row changed by another process since it was read (the optimistic path of a
    /// context used as a library) is exit 75 with a message that says to run the command again.
    @Test func conflictMessage() {
        let report = ErrorReporting.report(ContextError.conflict(model: "Post", id: "01J0000000000000000000000Z"))
        #expect(report.messages == ["another context or process changed Post 01J0000000000000000000000Z after it was read; nothing was saved"])
        #expect(report.hint == "run the command again: it will read the row as it is now")
        #expect(report.exitCode == .busy)
    }
}

private final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var result: VeinRunner.Result?
    func set(_ r: VeinRunner.Result?) { lock.withLock { result = r } }
    func get() -> VeinRunner.Result? { lock.withLock { result } }
}
