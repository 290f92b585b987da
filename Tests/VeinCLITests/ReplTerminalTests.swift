import Foundation
import Testing

/// `vein repl` in a real terminal (tmux): completion, continuation, Ctrl-C, Ctrl-D, the unsaved-changes
/// question, the pager, error carets, and what reaches the disk.
@Suite(.serialized) struct ReplTerminalTests {
    static let prompt = "b.vein> "

    func session(_ r: VeinRunner, _ extra: [String] = [], environment: [String: String] = [:]) throws -> TmuxSession {
        let tmux = try TmuxSession(r, ["repl", "b.vein", "--key-file", "k"] + extra, environment: environment)
        try tmux.waitFor(Self.prompt)
        return tmux
    }

    /// The last line of the screen that is not empty.
    static func lastLine(_ screen: String) -> String {
        screen.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.last { !$0.isEmpty } ?? ""
    }

    @Test func completesModelsFieldsEnumCasesAndDotCommands() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        let tmux = try session(r)
        defer { tmux.kill() }
        try tmux.type("count Att")
        try tmux.press("Tab")
        try tmux.waitFor("b.vein> count Attachment ")
        try tmux.type("where fileType == .gi")
        try tmux.press("Tab")
        try tmux.waitFor("where fileType == .gif ")
        try tmux.type("&& siz")
        try tmux.press("Tab")
        try tmux.waitFor("&& sizeMiB ")
        try tmux.type("> 1")
        try tmux.press("Enter")
        try tmux.waitFor("sizeMiB > 1\n0\n")
        try tmux.type(".sch")
        try tmux.press("Tab")
        try tmux.waitFor("b.vein> .schema ")
        try tmux.type("Po")
        try tmux.press("Tab")
        try tmux.press("Enter")
        try tmux.waitFor("  attachments: [Attachment]")
    }

    @Test func continuesAnIncompleteStatementAndCancelsWithCtrlC() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        let tmux = try session(r)
        defer { tmux.kill() }
        try tmux.type("count Post where (views == 0")
        try tmux.press("Enter")
        try tmux.waitFor("   ...> ")
        try tmux.type("|| views > 3)")
        try tmux.press("Enter")
        try tmux.waitUntil(description: "the count and a new prompt") { $0.contains("|| views > 3)\n0\nb.vein> ") }
        // Ctrl-C drops the line being typed, and a statement left open, without leaving.
        try tmux.type("count Post where (views")
        try tmux.press("Enter")
        try tmux.waitFor("   ...> ")
        try tmux.type("== 1")
        try tmux.waitFor("   ...> == 1")  // typed before the signal, which flushes what is not yet read
        try tmux.press("C-c")
        try tmux.waitFor("   ...> == 1^C\nb.vein> ")
        try tmux.type("count Post")
        try tmux.press("Enter")
        try tmux.waitFor("b.vein> count Post\n0\nb.vein> ")
        // Ctrl-D on an empty line quits.
        try tmux.press("C-d")
        #expect(try tmux.exitStatus() == 0)
    }

    /// A plaintext b.vein of 200,000 posts, written straight into the store by the sqlcipher shell.
    static func bigStore() throws -> VeinRunner {
        let r = try VeinRunner()
        #expect(try r.vein(["create", "b.vein", "--schema", VeinRunner.exampleManifest, "--plaintext"]).status == 0)
        let fill = try r.run("/usr/bin/sqlcipher", ["b.vein", """
            WITH RECURSIVE n(x) AS (VALUES(1) UNION ALL SELECT x + 1 FROM n WHERE x < 200000)
            INSERT INTO "Post"("_id", "title", "content", "views") SELECT printf('01J0000000%016d', x), 'post ' || x, 'text', x FROM n;
            """])
        #expect(fill.status == 0, "\(fill.stderr)")
        return r
    }

    @Test func ctrlCStopsALongFetchAndTheSessionGoesOn() throws {
        // An update reads its rows first: stopped in SQLite, it changes nothing (no '*' in the prompt after).
        try ctrlCStops("update Post where views > 0 set views = views + 1")
    }

    /// Types `statement` on a store of 200,000 posts, presses Ctrl-C while it runs, and expects SQLite to
    /// stop it and the session to go on unchanged.
    func ctrlCStops(_ statement: String) throws {
        let r = try Self.bigStore()
        defer { r.cleanUp() }
        let tmux = try TmuxSession(r, ["repl", "b.vein"], environment: ["VEIN_HISTORY": ""])
        defer { tmux.kill() }
        try tmux.waitFor(Self.prompt)
        try tmux.type(statement)
        try tmux.press("Enter")
        try tmux.waitUntilBusy()
        try tmux.press("C-c")
        try tmux.waitFor("interrupted\nb.vein> ", timeout: 20)
        try tmux.type("count Post")
        try tmux.press("Enter")
        try tmux.waitFor("200000\nb.vein> ")
    }

    /// The pager (which can run commands) does not get the key's variable.
    @Test func thePagerDoesNotSeeTheKey() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        let pager = #"echo "key variables: $(env | grep -c '^VEIN_KEY=')"; cat > /dev/null"#
        let tmux = try session(r, environment: ["VEIN_KEY": "not-the-key-but-secret", "PAGER": pager, "VEIN_HISTORY": ""])
        defer { tmux.kill() }
        try tmux.type("Post")
        try tmux.press("Enter")
        try tmux.waitFor("key variables: 0")
    }

    /// Raw SQL too: Ctrl-C stops it in SQLite (a cross join of 200,000 rows would run for hours).
    @Test func ctrlCStopsALongRawSQLRead() throws {
        try ctrlCStops(#".sql SELECT count(*) FROM "Post" a, "Post" b"#)
    }

    /// 200,000 rows go to the pager a line at a time: a pager that reads three lines and quits ends the
    /// output, and in less, Ctrl-C stops it; either way the session goes on.
    @Test func aLongResultStreamsToThePager() throws {
        let r = try Self.bigStore()
        defer { r.cleanUp() }
        let head = try TmuxSession(r, ["repl", "b.vein"], environment: ["PAGER": "head -n 3", "VEIN_HISTORY": ""])
        defer { head.kill() }
        try head.waitFor(Self.prompt)
        try head.type("Post")
        try head.press("Enter")
        let screen = try head.waitFor("  nil          []\nb.vein> ", timeout: 30)
        #expect(screen.contains("01J00000000000000000000002  post 2 ") && !screen.contains("post 3"))

        let less = try TmuxSession(r, ["repl", "b.vein"], environment: ["PAGER": "less -FRX", "VEIN_HISTORY": ""])
        defer { less.kill() }
        try less.waitFor(Self.prompt)
        try less.type("Post")
        try less.press("Enter")
        try less.waitFor("01J00000000000000000000010  post 10 ", timeout: 30)
        try less.press("C-c")
        // less may drop keys typed while it handles the interrupt: q until it has gone.
        var quitPresses = 0
        try less.waitUntil(timeout: 30, description: "the prompt after less") { screen in
            if Self.lastLine(screen).hasPrefix("b.vein>") { return true }
            quitPresses += 1
            if quitPresses % 10 == 1 { try? less.press("q") }
            return false
        }
        try less.press("C-u")  // a q that reached the prompt after less had gone
        try less.type("count Post")
        try less.press("Enter")
        try less.waitFor("200000\nb.vein> ")
    }

    /// Bold headers and dim nil on a terminal; none with NO_COLOR.
    @Test func colourOnATerminalButNeverWithNoColor() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        #expect(try r.query(#"insert Post(title: "a", content: "x")"#).status == 0)
        for noColor in [false, true] {
            let tmux = try session(r, environment: noColor ? ["NO_COLOR": "1"] : [:])
            defer { tmux.kill() }
            try tmux.type("Post")
            try tmux.press("Enter")
            try tmux.waitFor("(1 row)")
            let screen = try tmux.screen(escapes: true)
            #expect(screen.contains("\u{1B}[1m_id") != noColor, "\(screen)")
            #expect(screen.contains("\u{1B}[2mnil") != noColor, "\(screen)")
        }
    }

    @Test func quittingWithUnsavedChangesAsks() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        let tmux = try session(r)
        defer { tmux.kill() }
        try tmux.type(#"insert Post(title: "a", content: "x")"#)
        try tmux.press("Enter")
        try tmux.waitFor("b.vein*> ")
        try tmux.press("C-d")
        try tmux.waitFor("b.vein*> \n1 unsaved change: quit without saving? [y/n/save] ")
        try tmux.type("n")
        try tmux.press("Enter")
        try tmux.waitUntil(description: "the prompt again") { $0.contains("[y/n/save] n\nb.vein*> ") }
        try tmux.type(".quit")
        try tmux.press("Enter")
        try tmux.waitFor("b.vein*> .quit\n1 unsaved change: quit without saving? [y/n/save] ")
        try tmux.type("save")
        try tmux.press("Enter")
        #expect(try tmux.exitStatus() == 0)
        #expect(try tmux.screen().contains("saved 1 change"))
        #expect(try r.query("count Post").stdout == "1\n")
    }

    /// A save that meets a row another process changed says to roll back and repeat (saving again would fail
    /// the same way), and offers to roll back at once; the default keeps the changes.
    @Test func aConflictOffersToRollBack() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        #expect(try r.query(#"insert Post(title: "a", content: "x")"#).status == 0)
        let tmux = try session(r)
        defer { tmux.kill() }
        try tmux.type("update Post set views = 1")
        try tmux.press("Enter")
        try tmux.waitFor("b.vein*> ")
        #expect(try r.query("update Post set views = 2").status == 0)
        try tmux.type("save")
        try tmux.press("Enter")
        try tmux.waitFor("hint: 'rollback', then repeat your statements: they will read the row as it is now\nroll back now? [y/N] ")
        try tmux.press("Enter")
        try tmux.waitUntil(description: "the changes kept") {
            $0.trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix("roll back now? [y/N] \nb.vein*>")
        }
        try tmux.type("save")
        try tmux.press("Enter")
        try tmux.waitUntil(description: "the second offer") { $0.components(separatedBy: "roll back now? [y/N]").count == 3 }
        try tmux.type("y")
        try tmux.press("Enter")
        try tmux.waitFor("roll back now? [y/N] y\ndiscarded 1 change\nb.vein> ")
        #expect(try r.query("count Post where views == 2").stdout == "1\n")
    }

    @Test func longResultsGoThroughThePagerAndErrorsShowTheirCaret() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        let tmux = try session(r, environment: ["PAGER": "sed s/^/PAGED:/"])
        defer { tmux.kill() }
        try tmux.type(#"insert Post(title: "a", content: "x")"#)
        try tmux.press("Enter")
        try tmux.type("Post")
        try tmux.press("Enter")
        try tmux.waitFor("PAGED:_id ")
        try tmux.type(#"Post where titel == "x""#)
        try tmux.press("Enter")
        let screen = try tmux.waitFor("(did you mean 'title'?)")
        #expect(screen.contains("""
            vein: error: no field 'titel' in Post (did you mean 'title'?)
              Post where titel == "x"
                         ^
            """))
    }

    /// History holds data: for an encrypted store it stays in memory; for a plaintext one it is kept, 0600.
    /// And nothing of a passphrase is written anywhere.
    @Test func historyAndKeysOnDisk() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        let passphrase = "correct horse battery staple 7"
        let created = try r.vein(["create", "b.vein", "--schema", VeinRunner.exampleManifest, "--passphrase"], stdin: passphrase + "\n")
        #expect(created.status == 0, "\(created.stderr)")
        let tmux = try TmuxSession(r, ["repl", "b.vein", "--passphrase"])
        defer { tmux.kill() }
        try tmux.waitFor("Passphrase: ")
        try tmux.type(passphrase)
        try tmux.press("Enter")
        try tmux.waitFor("history in memory only")
        try tmux.type(#"insert Post(title: "secret title", content: "x")"#)
        try tmux.press("Enter")
        try tmux.type("save")
        try tmux.press("Enter")
        try tmux.waitFor("saved 1 change")
        try tmux.press("Up", "Up")
        try tmux.waitFor(#"b.vein> insert Post(title: "secret title", content: "x")"#)  // in memory
        try tmux.press("C-c")
        try tmux.waitFor("^C\nb.vein> ")
        try tmux.press("C-d")
        let status = try tmux.exitStatus(), screen = try tmux.screen()
        #expect(status == 0, "\(screen)")
        #expect(!r.exists(".vein_history"))
        for name in try FileManager.default.subpathsOfDirectory(atPath: r.directory.path) {
            let data = (try? Data(contentsOf: URL(fileURLWithPath: r.path(name)))) ?? Data()
            #expect(data.range(of: Data(passphrase.utf8)) == nil, "\(name) holds the passphrase")
            #expect(data.range(of: Data("secret title".utf8)) == nil, "\(name) holds data in plain text")
        }

        // Named with --history, an encrypted store's history is kept there, mode 0600, and read back.
        let named = try TmuxSession(r, ["repl", "b.vein", "--passphrase", "--history", "h.txt"])
        defer { named.kill() }
        try named.waitFor("Passphrase: ")
        try named.type(passphrase)
        try named.press("Enter")
        try named.waitFor("b.vein> ")
        try named.type("count Post")
        try named.press("Enter")
        try named.waitFor("1\nb.vein> ")
        try named.press("C-d")
        #expect(try named.exitStatus() == 0)
        #expect(try String(contentsOfFile: r.path("h.txt"), encoding: .utf8).contains("count Post"))
        #expect(try FileManager.default.attributesOfItem(atPath: r.path("h.txt"))[.posixPermissions] as? Int == 0o600)
        #expect(!(try String(contentsOfFile: r.path("h.txt"), encoding: .utf8).contains(passphrase)))

        // A plaintext store's history is kept, mode 0600.
        #expect(try r.vein(["create", "p.vein", "--schema", VeinRunner.exampleManifest, "--plaintext"]).status == 0)
        let plain = try TmuxSession(r, ["repl", "p.vein"])
        defer { plain.kill() }
        try plain.waitFor("p.vein> ")
        try plain.type("count Post")
        try plain.press("Enter")
        try plain.waitFor("0\np.vein> ")
        try plain.press("C-d")
        let plainStatus = try plain.exitStatus(), plainScreen = try plain.screen()
        #expect(plainStatus == 0, "\(plainScreen)")
        #expect(try String(contentsOfFile: r.path(".vein_history"), encoding: .utf8).contains("count Post"))
        let mode = try FileManager.default.attributesOfItem(atPath: r.path(".vein_history"))[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }
}

/// The newcomer session the README shows, replayed key by key; the screen must be the README's block
/// (ids and the version aside).
@Suite struct ReplReadmeSessionTests {
    static func readmeSession() throws -> [String] {
        let readme = try String(contentsOf: VeinRunner.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let marker = try #require(readme.range(of: "<!-- newcomer session:"))
        let block = readme[marker.upperBound...].components(separatedBy: "```text\n")[1].components(separatedBy: "```")[0]
        return block.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).dropLast().dropFirst().map { $0 }
    }

    /// Ids and the version differ from run to run.
    static func normalized(_ line: String) -> String {
        line.replacingOccurrences(of: "[0-9A-HJKMNP-TV-Z]{26}", with: "<id>", options: .regularExpression)
            .replacingOccurrences(of: "^vein [0-9.]+:", with: "vein <version>:", options: .regularExpression)
            .replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
    }

    @Test func newcomerSessionInTheReadme() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        #expect(try r.vein(["create", "blog.vein", "--schema", VeinRunner.exampleManifest, "--key-file", "blog.key"]).status == 0)
        let tmux = try TmuxSession(r, ["repl", "blog.vein", "--key-file", "blog.key"])
        defer { tmux.kill() }
        try tmux.waitFor("blog.vein> ")
        try tmux.type(#"insert Post(title: "How to use Vein?", content: "It is very easy.", views: 12)"#)
        try tmux.press("Enter")
        try tmux.waitFor("blog.vein*> ")
        try tmux.type(#"Post where title.contains("Vein") &&"#)
        try tmux.press("Enter")
        try tmux.waitFor("...> ")
        try tmux.type("  vi")
        try tmux.press("Tab")
        try tmux.waitFor("  views ")
        try tmux.type("> 10")
        try tmux.press("Enter")
        try tmux.waitFor("(1 row)")
        try tmux.type("changes")
        try tmux.press("Enter")
        try tmux.waitFor("'rollback' discards it")
        try tmux.type("save")
        try tmux.press("Enter")
        try tmux.waitFor("saved 1 change")
        try tmux.type(".quit")
        try tmux.press("Enter")
        #expect(try tmux.exitStatus() == 0)
        let screen = try tmux.screen().split(separator: "\n", omittingEmptySubsequences: false).map { Self.normalized(String($0)) }
        let shown = Array(screen.prefix { !$0.isEmpty && !$0.hasPrefix(TmuxSession.exitMarker) })
        let expected = try Self.readmeSession().map(Self.normalized)
        #expect(shown == expected)
        #expect(try r.vein(["query", "blog.vein", "count Post", "--key-file", "blog.key"]).stdout == "1\n")
    }
}
