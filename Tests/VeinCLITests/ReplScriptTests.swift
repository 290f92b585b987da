import Foundation
import Testing
import Vein

/// `vein repl` with standard input not a terminal: a script, run like `sqlite3 -bail`, with writes pending
/// until `save`.
@Suite struct ReplScriptTests {
    func repl(_ r: VeinRunner, _ script: String, _ extra: [String] = [], environment: [String: String] = [:]) throws -> VeinRunner.Result {
        try r.vein(["repl", "b.vein", "--key-file", "k"] + extra, stdin: script, environment: environment)
    }

    /// Every statement form runs in one session and prints what `vein query` prints.
    @Test func everyStatementFormInOneSession() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        let setUp = try repl(r, #"""
            insert Post(title: "How to use Vein?", content: "It's very easy.", views: 12)
            insert Post(title: "Second", content: "x")
            save
            """#)
        #expect(setUp.status == 0, "\(setUp.stderr)")
        #expect(setUp.stdout.split(separator: "\n").allSatisfy { $0.hasPrefix("inserted Post ") })
        #expect(setUp.stderr.contains("saved 2 changes"))
        let postID = try #require(try JSONParser.parse(try r.query("Post where views > 10", ["--format", "json"]).stdout).arrayValue?.first?
            .objectValue?["_id"]?.stringValue)

        let script = #"""
            insert Attachment(name: "a.png", fileType: .png, sizeMiB: 0.5, post: #id("\#(postID)"))
            insert Attachment(name: "b.gif", fileType: .gif, sizeMiB: 2.5, post: #id("\#(postID)"))
            .mode csv
            Post where title.contains("Vein") && views > 10 sort publishedAt desc, title limit 20 offset 0
            count Post where publishedAt == nil
            get #id("\#(postID)")
            Post(#id("\#(postID)")).attachments where sizeMiB > 1 sort name
            .mode table
            update Post where title == "Second" set views = views + 1
            delete Attachment where fileType == .png
            save
            """#
        let result = try repl(r, script)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        try #require(lines.count == 13, "\(lines)")
        // Each write shows its own changes, not everything pending.
        #expect(lines[0].hasPrefix("inserted Attachment ") && lines[1] == "updated Post \(postID) (attachments)")
        #expect(lines[2].hasPrefix("inserted Attachment ") && lines[3] == "updated Post \(postID) (attachments)")
        #expect(lines[4] == "_id,title,content,views,publishedAt,attachments")
        #expect(lines[5].hasPrefix("\(postID),How to use Vein?,"))
        #expect(lines[6] == "2")
        #expect(lines[8].hasPrefix("\(postID),"))
        #expect(lines[10].contains(",b.gif,gif,2.5,"))
        #expect(lines[11].hasPrefix("updated Post ") && lines[11].hasSuffix("(views)"))
        // The attachment deleted was inserted in this session: no pending change is left, and still it shows.
        #expect(lines[12].hasPrefix("deleted Attachment "))
        #expect(try r.query("count Attachment").stdout == "1\n")
        #expect(try r.query("count Post where views == 1").stdout == "1\n")
    }

    @Test func writesStayPendingUntilSaveAndRollbackDiscards() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        let result = try repl(r, #"""
            insert Post(title: "a", content: "x")
            count Post
            changes
            rollback
            changes
            count Post
            insert Post(title: "b", content: "y")
            insert Post(title: "c", content: "z")
            changes
            save
            """#)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        try #require(lines.count == 8, "\(lines)")
        #expect(lines[1] == "1" && lines[2] == lines[0])  // the pending insert counts; `changes` lists it
        #expect(lines[3] == "0")  // after rollback
        #expect(Array(lines[6...]) == Array(lines[4...5]))  // `changes` lists both pending inserts
        #expect(result.stderr.contains("1 unsaved change: 'save' writes it, 'rollback' discards it"))
        #expect(result.stderr.contains("discarded 1 change"))
        #expect(result.stderr.contains("no unsaved changes"))
        #expect(result.stderr.contains("saved 2 changes"))
        #expect(try r.query("count Post").stdout == "2\n")
    }

    /// A statement updated twice shows its change both times (a diff of pending changes would not).
    @Test func aRepeatedUpdateReportsItsChangeEachTime() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        #expect(try r.query(#"insert Post(title: "a", content: "x")"#).status == 0)
        let result = try repl(r, """
            update Post set views = views + 1
            update Post set views = views + 1
            save
            """)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 2 && lines[0] == lines[1] && lines[0].hasSuffix("(views)"), "\(lines)")
        #expect(try r.query("count Post where views == 2").stdout == "1\n")
    }

    @Test func aScriptEndingWithUnsavedChangesWritesNothing() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        let result = try repl(r, #"insert Post(title: "a", content: "x")"# + "\n")
        #expect(result.status == 65)
        #expect(result.stderr == """
            vein: error: the script ended with 1 unsaved change; nothing was written
            hint: end the script with 'save' to write them, or 'rollback' to discard them

            """)
        #expect(try r.query("count Post").stdout == "0\n")
    }

    /// Like `sqlite3 -bail`: the first error ends the script with its own status; what follows does not run,
    /// and what was pending is not written.
    @Test func theFirstErrorStopsTheScriptWithItsStatus() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        let result = try repl(r, #"""
            insert Post(title: "a", content: "x")
            Post where titel == "x"
            save
            """#)
        #expect(result.status == 65)
        #expect(result.stderr == """
            vein: error: line 2: no field 'titel' in Post (did you mean 'title'?)
              Post where titel == "x"
                         ^

            """)
        #expect(try r.query("count Post").stdout == "0\n")
        let usage = try repl(r, ".mdoe csv\ncount Post\n")
        #expect(usage.status == 65 && usage.stdout.isEmpty)
        #expect(usage.stderr == "vein: error: line 1: unknown command '.mdoe' (did you mean '.mode'?)\nhint: '.help' lists the commands\n")
    }

    /// A statement spans lines while it is incomplete; the error of one that never completes points into
    /// the line where it is.
    @Test func multiLineStatementsAndTheirErrors() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        let result = try repl(r, #"""
            insert Post(
                title: "multi
            line",
                content: "x")
            count Post where views == 0 &&
                title.hasPrefix("multi")
            save
            """#)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasSuffix("\n1\n"))
        let unfinished = try repl(r, "count Post where (views == 0\n")
        #expect(unfinished.status == 65)
        #expect(unfinished.stderr.hasPrefix("vein: error: line 1: expected ')', found end of input\n"))
        let wrongLine = try repl(r, "Post where views == 0 &&\n  titel == \"x\"\n")
        #expect(wrongLine.stderr == """
            vein: error: line 1: no field 'titel' in Post (did you mean 'title'?)
                titel == "x"
                ^

            """)
    }

    @Test func readOnlyRefusesWrites() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        let result = try repl(r, "count Post\n" + #"insert Post(title: "a", content: "x")"# + "\n", ["--read-only"])
        #expect(result.status == 65)
        #expect(result.stdout == "0\n")
        #expect(result.stderr == "vein: error: line 2: the store is open read-only (--read-only): a write is not run\n")
    }

    @Test func dotCommands() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        try r.write("more.vein", #"insert Post(title: "from a file", content: "x")"# + "\nsave\n")
        let result = try repl(r, #"""
            .models
            .schema Attachment
            .read more.vein
            .mode line
            Post
            .mode jsonl
            count Post
            .mode table
            .headers off
            .width 26 4
            Post
            .timer on
            count Post
            .timer off
            .output out.txt
            count Post
            .output
            .headers on
            .sql SELECT count(*) AS posts FROM "Post"
            """#)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        try #require(lines.count == 21, "\(lines)")
        #expect(Array(lines[0...7]) == ["Post", "Attachment", "Attachment", "  name: string", "  fileType: enum (.png, .jpg, .gif, .swift)",
                                         "  sizeMiB: double", "  data: data? lazy", "  post: Post? inverse attachments, delete rule nullify"])
        #expect(lines[8].hasPrefix("inserted Post "))
        #expect(lines[9].hasPrefix("        _id = ") && lines[10] == "      title = from a file" && lines[14] == "attachments = []")
        #expect(lines[15] == #"{"count":1}"#)
        #expect(lines[16].hasSuffix("  fro…  x        0      nil          []"), "\(lines[16])")
        #expect(lines[17] == "1")
        #expect(result.stderr.contains("time: "))
        #expect(try String(contentsOfFile: r.path("out.txt"), encoding: .utf8) == "1\n")
        let mode = try FileManager.default.attributesOfItem(atPath: r.path("out.txt"))[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(Array(lines[18...20]) == ["posts", "1", ""])
    }

    @Test func dotCommandMistakes() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        let schema = try repl(r, ".schema Pots\n")
        #expect(schema.status == 65)
        #expect(schema.stderr == "vein: error: line 1: no model 'Pots' (did you mean 'Post'?)\n")
        let mode = try repl(r, ".mode jsn\n")
        #expect(mode.status == 65)
        #expect(mode.stderr == "vein: error: line 1: unknown mode 'jsn' (did you mean 'json'?)\nhint: usage: .mode table|json|jsonl|csv [--safe]|line\n")
        let timer = try repl(r, ".timer maybe\n")
        #expect(timer.status == 65 && timer.stderr == "vein: error: line 1: expected on or off\nhint: usage: .timer on|off\n")
        let read = try repl(r, ".read missing.vein\n")
        #expect(read.status == 66 && read.stderr.hasPrefix("vein: error: line 1: "))
    }

    /// Help and the man page carry the section that maps sqlite3 habits.
    @Test func helpAndManPageMapSqlite3Habits() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        let help = try r.vein(["help", "repl"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("\nFor sqlite3 users:\n"))
        #expect(help.stdout.contains("  .tables                        .models\n"))
        #expect(help.stdout.contains("  SELECT * FROM post WHERE …     Post where …\n"))
        let man = try String(contentsOf: VeinRunner.packageRoot.appendingPathComponent("man/vein-repl.1"), encoding: .utf8)
        #expect(man.contains(".SH FOR SQLITE3 USERS\n"))
    }

    /// `.quit` ends a script (what follows does not run); `.help` lists every dot-command.
    @Test func quitAndHelp() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        let result = try repl(r, ".help\n.quit\ncount Post\n")
        #expect(result.status == 0, "\(result.stderr)")
        for command in [".models", ".schema [MODEL]", ".mode table|json|jsonl|csv [--safe]|line", ".timer on|off", ".headers on|off", ".width [N …]",
                        ".read FILE", ".output [--force] [FILE]", ".explain [--all] STATEMENT", ".sql SELECT …", ".help", ".quit"] {
            #expect(result.stdout.contains("\n\(command)  "), "\(command)")
        }
        #expect(!result.stdout.hasSuffix("0\n"))
        // A nested .read stops at its own first error, named by its file and line.
        try r.write("bad.vein", "count Post\ncount Pots\n")
        let nested = try repl(r, ".read bad.vein\ncount Post\n")
        #expect(nested.status == 65 && nested.stdout == "0\n")
        #expect(nested.stderr.hasPrefix("vein: error: bad.vein:2: no model 'Pots' (did you mean 'Post'?)\n"))
    }

    @Test func explainShowsTheSQLThePlanAndWhatIsLeftToMemory() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        let exact = try repl(r, ".explain Post where views > 10 sort publishedAt desc\n")
        #expect(exact.status == 0, "\(exact.stderr)")
        #expect(exact.stdout.contains(#"WHERE ("Post"."views" > ?) ORDER BY "Post"."publishedAt" DESC"#))
        #expect(exact.stdout.contains("arguments: 10\nquery plan:\n"))
        #expect(exact.stdout.hasSuffix("in memory: nothing (SQL gives the answer)\n"))
        // A closure that can trap keeps Swift's member order, which SQL does not: left to memory.
        let inexact = try repl(r, ".explain Post where attachments.contains { $0.name.count % 0 == 1 }\n")
        #expect(inexact.stdout.hasSuffix("in memory:\n  the condition (SQL narrows the rows; Swift's semantics decide)\n"))
    }

    @Test func rawSQLReadsAndRefusesWrites() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        for sql in [#"DELETE FROM "Post""#, "PRAGMA rekey = 'x'", "CREATE TABLE t(x)", "SELECT 1; DELETE FROM \"Post\""] {
            let result = try repl(r, ".sql \(sql)\n")
            #expect(result.status == 65, "\(sql)")
            #expect(result.stderr.hasPrefix("vein: error: line 1: .sql runs "), "\(sql): \(result.stderr)")
        }
        // Still readable with the same key: nothing was rekeyed.
        #expect(try r.query("count Post").status == 0)
        let read = try repl(r, ".mode csv\n.sql WITH t(x) AS (VALUES (1), (2)) SELECT sum(x) AS total FROM t\n")
        #expect(read.stdout == "total\n3\n")
    }
}
