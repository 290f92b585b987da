import Foundation
import Testing

/// Small things a hostile but fair user meets: control characters in stored text, a re-import, a
/// manifest from a pipe, and the order of an export's models.
@Suite struct OutputAndInputEdgeTests {
    let manifest = VeinRunner.exampleManifest

    func plaintextStore(_ r: VeinRunner) throws {
        #expect(try r.vein(["create", "s.vein", "--schema", manifest, "--plaintext"]).status == 0)
    }

    /// Raw, an ESC sequence stored in a title retitles the terminal that shows the table.
    @Test func aTableShowsControlCharactersEscaped() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try plaintextStore(r)
        #expect(try r.vein(["query", "s.vein", #"insert Post(title: "x", content: "c")"#]).status == 0)
        let shell = try r.run("/usr/bin/sqlite3", ["s.vein", "UPDATE Post SET title = char(27) || ']0;pwned' || char(7) || char(10) || char(9) || char(127) || char(155) || 'é'"])
        #expect(shell.status == 0, "\(shell.stderr)")
        let table = try r.vein(["query", "s.vein", "Post"])
        #expect(table.status == 0)
        #expect(!table.stdout.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value) })
        #expect(table.stdout.contains(#"\u{1B}]0;pwned\u{7}\n\t\u{7F}\u{9B}é "#))
        // JSON and CSV keep the value itself (JSON escapes it its own way).
        let json = try r.vein(["query", "s.vein", "Post", "--format", "json"])
        #expect(json.stdout.contains(#""title": "\u001b]0;pwned\u0007\n\t"#))
        // An id another tool wrote is stored text too, in verify's report and in a write's summary.
        #expect(try r.run("/usr/bin/sqlite3", ["s.vein", "UPDATE Post SET _id = 'x' || char(27) || '[2J'"]).status == 0)
        let verify = try r.vein(["verify", "s.vein"])
        #expect(verify.stdout.contains(#"  Post._id: 1 id is not a ULID (x\u{1B}[2J)"#))
        let deleted = try r.vein(["query", "s.vein", "delete Post"])
        #expect(deleted.stdout == #"deleted Post x\u{1B}[2J"# + "\n")
    }

    /// Importing a file twice: one line with the count and the hint, not twenty lines and a stop.
    @Test func aReimportIsOneLineWithTheCount() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try plaintextStore(r)
        for i in 0..<30 {
            #expect(try r.vein(["query", "s.vein", "insert Post(title: \"t\(i)\", content: \"c\")"]).status == 0)
        }
        #expect(try r.vein(["export", "s.vein", "-o", "d.json"]).status == 0)
        let ids = try r.run("/usr/bin/sqlite3", ["s.vein", "SELECT _id FROM Post ORDER BY _id LIMIT 5"]).stdout.split(separator: "\n")
        let again = try r.vein(["import", "s.vein", "d.json"])
        #expect(again.status == 65)
        #expect(again.stderr == """
            vein: error: import from d.json refused; nothing was written
            vein: error:   Post: 30 records have ids already in the store (\(ids.joined(separator: ", ")), …)
            hint: pass --upsert to replace records that have the same id

            """)
    }

    /// `<(cat m.json5)`, /dev/stdin and a FIFO have no size to read at once: they are read to the end.
    @Test func aManifestFromAPipeOrFIFOIsRead() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        let substituted = try r.run("/bin/bash", ["-c", #""$0" create a.vein --schema <(cat "$1") --plaintext"#, VeinRunner.binary, manifest])
        #expect(substituted.status == 0, "\(substituted.stderr)")
        #expect(substituted.stdout == "created a.vein: com.example.blog 0.0.1, 2 models, not encrypted\n")

        let stdin = try r.vein(["create", "b.vein", "--schema", "/dev/stdin", "--plaintext"],
                               stdin: try String(contentsOfFile: manifest, encoding: .utf8))
        #expect(stdin.status == 0, "\(stdin.stderr)")

        #expect(mkfifo(r.path("m.fifo"), 0o600) == 0)
        let fifo = try r.run("/bin/sh", ["-c", #"cat "$1" > m.fifo & "$0" create c.vein --schema m.fifo --plaintext; s=$?; wait; exit $s"#,
                                         VeinRunner.binary, manifest])
        #expect(fifo.status == 0, "\(fifo.stderr)")
        #expect(r.exists("c.vein"))
    }

    /// Every file vein reads (a manifest, a plan, an import file, `--fixture`, the REPL's `.read`) is a regular
    /// file or a pipe: a directory or a device is exit 66 before anything is read (an import from a
    /// directory was 65; `--schema /dev/zero` read until memory ran out). Text read whole stops at 64 MiB.
    @Test func aDirectoryOrADeviceWhereAFileIsExpectedIsExit66() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        try FileManager.default.createDirectory(atPath: r.path("dir"), withIntermediateDirectories: false)
        let plan = VeinRunner.packageRoot.appendingPathComponent("examples/migration/plan.json5").path
        let cases: [([String], String)] = [
            (["import", "b.vein", "dir", "--key-file", "k"], "dir: it is a directory"),
            (["import", "b.vein", "/dev/zero", "--key-file", "k"], "/dev/zero: it is a device, not a file"),
            (["create", "n.vein", "--schema", "dir", "--plaintext"], "dir: it is a directory"),
            (["create", "n.vein", "--schema", "/dev/zero", "--plaintext"], "/dev/zero: it is a device, not a file"),
            (["migrate", "check", "dir"], "dir: it is a directory"),
            (["migrate", "check", plan, "--fixture", "dir"], "dir: it is a directory"),
            (["migrate", "check", plan, "--fixture", "/dev/zero"], "/dev/zero: it is a device, not a file"),
        ]
        for (arguments, reason) in cases {
            let result = try r.vein(arguments)
            #expect(result.status == 66, "\(arguments): \(result.stderr)")
            #expect(result.stderr == "vein: error: cannot read \(reason)\n", "\(arguments)")
        }
        #expect(!r.exists("n.vein"))

        let huge = try r.run("/bin/bash", ["-c", #""$0" create n.vein --schema <(head -c 70000000 /dev/zero) --plaintext"#, VeinRunner.binary])
        #expect(huge.status == 65)
        #expect(huge.stderr.hasPrefix("vein: error: cannot read /dev/fd/") && huge.stderr.hasSuffix(": it is larger than 64 MiB\n"), "\(huge.stderr)")

        // Pipes still are files: an import from a process substitution.
        #expect(try r.query(#"insert Post(title: "a", content: "x")"#).status == 0)
        #expect(try r.vein(["export", "b.vein", "--format", "jsonl", "-o", "posts.jsonl", "--key-file", "k"]).status == 0)
        #expect(try r.vein(["create", "c.vein", "--schema", VeinRunner.exampleManifest, "--plaintext"]).status == 0)
        let piped = try r.run("/bin/bash", ["-c", #""$0" import c.vein <(cat posts.jsonl) --format jsonl"#, VeinRunner.binary])
        #expect(piped.status == 0, "\(piped.stderr)")
    }

    @Test func exportFollowsSchemaOrderNotTheCommandLine() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try plaintextStore(r)
        let chosen = try r.vein(["export", "s.vein", "--model", "Attachment", "--model", "Post"])
        let all = try r.vein(["export", "s.vein"])
        #expect(chosen.status == 0)
        #expect(chosen.stdout == all.stdout)
        #expect(chosen.stdout.contains("\"Post\":[]\n,\n\"Attachment\":[") || chosen.stdout.range(of: "\"Post\"")!.lowerBound < chosen.stdout.range(of: "\"Attachment\"")!.lowerBound)
    }
}
