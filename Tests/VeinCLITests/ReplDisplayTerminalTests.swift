import Foundation
import Testing
import Vein

/// What only a terminal shows of the REPL's results (tmux): tables fitted by display width with ids
/// whole, the footer below the rows, a pager that fails, long lists summarised, a huge blob shown from
/// its first bytes.
@Suite(.serialized) struct ReplDisplayTerminalTests {
    static let prompt = "b.vein> "

    func session(_ r: VeinRunner, width: Int = 100, environment: [String: String] = [:]) throws -> TmuxSession {
        let tmux = try TmuxSession(r, ["repl", "b.vein", "--key-file", "k"], environment: environment, width: width)
        try tmux.waitFor(Self.prompt)
        return tmux
    }

    /// The screen's lines, without trailing spaces.
    static func lines(_ screen: String) -> [String] {
        screen.split(separator: "\n", omittingEmptySubsequences: false).map { String($0.reversed().drop { $0 == " " }.reversed()) }
    }

    /// On 60 columns the id stays whole and the other columns give way; 日本語 counts two columns a
    /// character, so the line does not wrap.
    @Test func idsStayWholeAndWideTextFitsTheTerminal() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        let inserted = try r.query("insert Post(title: \"\(String(repeating: "日本語", count: 10))\", content: \"c\")")
        let id = try #require(inserted.stdout.split(separator: " ").last).trimmingCharacters(in: .whitespacesAndNewlines)
        let tmux = try session(r, width: 60)
        defer { tmux.kill() }
        try tmux.type("Post")
        try tmux.press("Enter")
        let lines = Self.lines(try tmux.waitFor("(1 row)"))
        let header = try #require(lines.firstIndex { $0.hasPrefix("_id ") })
        #expect(Array(lines[header...(header + 2)]) == [
            "_id" + String(repeating: " ", count: 25) + "tit…  cont…  views  publ…  atta…",
            "\(id)  日…   c      0      nil    []",
            "(1 row)",
        ])
        #expect(lines[header...(header + 1)].allSatisfy { DisplayWidth.of($0) <= 60 })
        // The same session's `.output FILE` is no terminal: the title goes there whole.
        try tmux.type(".output out.txt")
        try tmux.press("Enter")
        try tmux.type("Post")
        try tmux.press("Enter")
        try tmux.waitUntil(description: "the second result") { $0.components(separatedBy: "(1 row)").count == 3 }
        let written = try String(contentsOfFile: r.path("out.txt"), encoding: .utf8)
        #expect(written.hasSuffix("\(id)  \(String(repeating: "日本語", count: 10))  c  0  nil  []\n"), "\(written)")
    }

    /// The footer comes after the rows: written once the pager has shown them and ended.
    @Test func theFooterComesAfterTheRows() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        #expect(try r.query(#"insert Post(title: "a", content: "x")"#).status == 0)
        let tmux = try session(r, environment: ["PAGER": "sleep 1; cat"])
        defer { tmux.kill() }
        try tmux.type("Post")
        try tmux.press("Enter")
        let screen = try tmux.waitFor("(1 row)\n\(Self.prompt)")
        #expect(screen.contains("  a      x        0      nil          []\n(1 row)\n"), "\(screen)")
    }

    /// A pager that fails (`false`, a program that is not there) would drop the result without a word: it
    /// is said once, and the result shown without it.
    @Test func aFailingPagerFallsBackToDirectOutput() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        #expect(try r.query(#"insert Post(title: "a", content: "x")"#).status == 0)
        for (pager, reason) in [("false", "exit status 1"), ("no-such-pager", "exit status 127: command not found")] {
            let tmux = try session(r, environment: ["PAGER": pager])
            defer { tmux.kill() }
            try tmux.type("Post")
            try tmux.press("Enter")
            let warning = "vein: warning: the pager '\(pager)' failed (\(reason)); results are shown without it for the rest of the session"
            var screen = try tmux.waitFor("(1 row)\n\(Self.prompt)")
            #expect(screen.contains(warning + "\n_id "), "\(screen)")
            #expect(screen.contains("  a      x        0      nil          []\n(1 row)\n"), "\(screen)")
            try tmux.type("Post where title == \"a\"")
            try tmux.press("Enter")
            screen = try tmux.waitUntil(description: "the second result") { $0.components(separatedBy: "(1 row)").count == 3 }
            #expect(screen.components(separatedBy: warning).count == 2, "said once: \(screen)")
        }
    }

    /// 40 updates on a 30-line terminal: one summary line, the whole list one option away; `.explain`
    /// shortens its arguments likewise.
    @Test func longListsAreSummarisedPastAScreenful() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        #expect(try r.vein(["create", "b.vein", "--schema", VeinRunner.exampleManifest, "--plaintext"]).status == 0)
        let fill = try r.run("/usr/bin/sqlcipher", ["b.vein", """
            WITH RECURSIVE n(x) AS (VALUES(1) UNION ALL SELECT x + 1 FROM n WHERE x < 40)
            INSERT INTO "Post"("_id", "title", "content", "views") SELECT printf('01J0000000%016d', x), 'post ' || x, 'text', x FROM n;
            """])
        #expect(fill.status == 0, "\(fill.stderr)")
        let id = { (n: Int) in "01J0000000" + String(format: "%016d", n) }
        let tmux = try TmuxSession(r, ["repl", "b.vein"], environment: ["VEIN_HISTORY": ""])
        defer { tmux.kill() }
        try tmux.waitFor(Self.prompt)
        try tmux.type("update Post where views > 0 set views = views + 1")
        try tmux.press("Enter")
        let summary = "updated 40 Post rows (views): \(id(1)), \(id(2)), \(id(3)), … 37 more"
        try tmux.waitFor(summary + "\n'changes --all' lists every pending change\nb.vein*> ")
        try tmux.type("changes")
        try tmux.press("Enter")
        try tmux.waitFor("changes\n" + summary + "\n40 unsaved changes: 'save' writes them, 'rollback' discards them; 'changes --all' lists each\n")
        try tmux.type("changes --all")
        try tmux.press("Enter")
        try tmux.waitFor("updated Post \(id(40)) (views)\n40 unsaved changes: 'save' writes them, 'rollback' discards them\n")
        try tmux.type(".explain Post where views > 5")
        try tmux.press("Enter")
        // The value, then the pending rows' ids (in no particular order): ten of the 41, and a count.
        var screen = try tmux.waitFor(", … 31 more\n")
        let shortened = try #require(Self.lines(screen).last { $0.hasPrefix("arguments: ") })
        #expect(shortened.hasPrefix("arguments: 5, '01J") && shortened.components(separatedBy: ", ").count == 11, "\(shortened)")
        #expect(screen.contains(#"IN (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, … 30 more)"#), "\(screen)")
        try tmux.type(".explain --all Post where views > 5")
        try tmux.press("Enter")
        screen = try tmux.waitUntil(description: "the whole list") { screen in
            Self.lines(screen).filter { $0.hasPrefix("arguments: ") }.count == 2
        }
        let whole = try #require(Self.lines(screen).last { $0.hasPrefix("arguments: ") })
        #expect(whole.components(separatedBy: ", ").count == 41 && !whole.contains("more"))
        #expect(Set((1...40).map { "'\(id($0))'" }).isSubset(of: Set(whole.components(separatedBy: ", "))))
    }

    /// A terminal that does not tell its size (a bare pty, no COLUMNS) is still a screen: 80 columns.
    @Test func aTerminalOfUnknownSizeIsTakenAsEightyColumns() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        #expect(try r.query("insert Post(title: \"\(String(repeating: "t", count: 100))\", content: \"c\")").status == 0)
        let command = [VeinRunner.binary, "query", "b.vein", "Post", "--key-file", "k"].map(TmuxSession.shellQuoted).joined(separator: " ")
        let shown = try r.run("/usr/bin/script", ["-qec", command, "/dev/null"])
        #expect(shown.status == 0, "\(shown.stderr)")
        let lines = shown.stdout.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(lines.count == 3 && lines.allSatisfy { DisplayWidth.of($0) <= 80 } && lines[1].contains("tttt…"), "\(lines)")
    }

    /// A blob of 20 MB is shown from its first bytes: its line fits the terminal, and no hex of the
    /// whole is made (that took minutes and gigabytes).
    @Test func aHugeBlobIsShownFromItsFirstBytes() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        let tmux = try session(r)
        defer { tmux.kill() }
        try tmux.type(".sql SELECT length(x'00') AS n, zeroblob(20000000) AS b")
        try tmux.press("Enter")
        let lines = Self.lines(try tmux.waitFor("(1 row)\n\(Self.prompt)", timeout: 30))
        let header = try #require(lines.firstIndex { $0.hasPrefix("n  b") })
        #expect(lines[header + 1] == "1  x'" + String(repeating: "0", count: 37) + "…")
    }
}
