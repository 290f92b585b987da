import Foundation
import Testing
import Vein

/// A store of format 2, written by vein 0.1.0 (Tests/VeinCLITests/Fixtures/format2): read as it is, every
/// write refused with the way out, and `vein upgrade` converting it in place, whole even when killed.
@Suite struct StoreUpgradeTests {
    static let fixtures = VeinRunner.packageRoot.appendingPathComponent("Tests/VeinCLITests/Fixtures/format2")
    static let refusal = """
        vein: error: shop.vein is in store format 2, which this vein reads but does not write: \
        run 'vein upgrade shop.vein' to convert it to format 3
        hint: commands that only read (info, query, export, verify) work on it as it is

        """

    /// A runner holding a copy of the fixture store and its key (git keeps no file modes: the key is made 0600).
    func formatTwoStore() throws -> VeinRunner {
        let r = try VeinRunner()
        for name in ["shop.vein", "shop.key", "shop-2.json5", "export.json", "export.jsonl"] {
            try FileManager.default.copyItem(atPath: Self.fixtures.appendingPathComponent(name).path, toPath: r.path(name))
        }
        chmod(r.path("shop.key"), 0o600)
        return r
    }

    /// What the fixture's export (interchange version 1) is in version 2: the key under `_id`.
    static func asVersion2(_ exported: String) -> String {
        exported.replacingOccurrences(of: "{\"vein\":1,", with: "{\"vein\":2,")
            .replacingOccurrences(of: "{\"id\":", with: "{\"_id\":")
            .replacingOccurrences(of: ",\"id\":", with: ",\"_id\":")
    }

    func file(_ r: VeinRunner, _ name: String) throws -> String { try String(contentsOfFile: r.path(name), encoding: .utf8) }

    @Test func aFormatTwoStoreIsReadAsItIs() throws {
        let r = try formatTwoStore()
        defer { r.cleanUp() }
        let key = ["--key-file", "shop.key"]
        let info = try r.vein(["info", "shop.vein", "--json"] + key)
        #expect(info.status == 0 && info.stdout.contains("\"formatVersion\": 2"), "\(info.stderr)")
        let export = try r.vein(["export", "shop.vein"] + key)
        #expect(export.stdout == Self.asVersion2(try file(r, "export.json")), "\(export.stderr)")
        let lines = try r.vein(["export", "shop.vein", "--format", "jsonl"] + key)
        #expect(lines.stdout == Self.asVersion2(try file(r, "export.jsonl")), "\(lines.stderr)")
        let query = try r.vein(["query", "shop.vein", "Post where author?.name == \"Ada\" && tags.count > 0 sort id desc", "--format", "csv"] + key)
        #expect(query.stdout == """
            _id,title,status,meta,views,author,tags,related
            01HZZ00000000000000000PPP2,Second,draft,,0,01HZZ00000000000000000AAA1,"[""01HZZ00000000000000000TTT1""]",[]
            01HZZ00000000000000000PPP1,Hello,live,"{""tags"":[""a"",""b""],""w"":1.5}",10,01HZZ00000000000000000AAA1,\
            "[""01HZZ00000000000000000TTT1"",""01HZZ00000000000000000TTT2""]","[""01HZZ00000000000000000PPP3"",""01HZZ00000000000000000PPP2""]"

            """, "\(query.stderr)")
        let get = try r.vein(["query", "shop.vein", "get #id(\"01HZZ00000000000000000TTT2\")", "--format", "jsonl"] + key)
        #expect(get.stdout == "{\"_id\":\"01HZZ00000000000000000TTT2\",\"label\":\"linux\",\"posts\":[\"01HZZ00000000000000000PPP1\"]}\n")
        let verify = try r.vein(["verify", "shop.vein"] + key)
        #expect(verify.status == 0 && verify.stdout == "integrity      ok\nschema         ok\nvalues         ok\nrelationships  ok\n")
        let repl = try r.vein(["repl", "shop.vein"] + key, stdin: "count Author where bio != nil\n")
        #expect(repl.stdout == "1\n" && repl.status == 0)
        #expect(repl.stderr == "vein: warning: shop.vein is in store format 2, which this vein reads but does not write: "
                + "run 'vein upgrade shop.vein' to convert it to format 3; opened read-only\n")
    }

    @Test func everyWriteToAFormatTwoStoreSaysToUpgrade() throws {
        let r = try formatTwoStore()
        defer { r.cleanUp() }
        let key = ["--key-file", "shop.key"]
        let before = try Data(contentsOf: URL(fileURLWithPath: r.path("shop.vein")))
        for arguments in [["query", "shop.vein", "update Post where views == 0 set views = 1"], ["import", "shop.vein", "export.json", "--upsert"],
                          ["migrate", "shop.vein", "--plan", Self.fixtures.appendingPathComponent("plan.json5").path],
                          ["backup", "shop.vein", "copy.vein"], ["key", "rotate", "shop.vein"]] {
            let result = try r.vein(arguments + key)
            #expect(result.status == 65, "\(arguments)")
            #expect(result.stderr == Self.refusal, "\(arguments)")
        }
        let repl = try r.vein(["repl", "shop.vein"] + key, stdin: "insert Tag(label: \"new\")\n")
        #expect(repl.status == 65)
        #expect(repl.stderr.hasSuffix(Self.refusal.replacingOccurrences(of: "vein: error: ", with: "vein: error: line 1: ")))
        #expect(try Data(contentsOf: URL(fileURLWithPath: r.path("shop.vein"))) == before)
        #expect(!FileManager.default.fileExists(atPath: r.path("copy.vein")))
    }

    @Test func upgradeConvertsInPlaceAndEverythingReadsTheSame() throws {
        let r = try formatTwoStore()
        defer { r.cleanUp() }
        let key = ["--key-file", "shop.key"]
        let before = try r.vein(["export", "shop.vein"] + key).stdout
        let upgrade = try r.vein(["upgrade", "shop.vein"] + key)
        #expect(upgrade.status == 0 && upgrade.stdout == "upgraded shop.vein from format 2 to format 3: 3 models, 7 rows\n", "\(upgrade.stderr)")
        let again = try r.vein(["upgrade", "shop.vein"] + key)
        #expect(again.status == 0 && again.stdout == "shop.vein is already in store format 3: nothing to do\n")
        #expect(try r.vein(["export", "shop.vein"] + key).stdout == before)
        #expect(try r.vein(["verify", "shop.vein"] + key).status == 0)
        let store = try Store.open(r.path("shop.vein"), keys: KeyOptions(keyFile: r.path("shop.key"), keyring: nil), mode: .readOnly)
        let tables = try store.database.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").compactMap { $0[0].string }
        #expect(tables == ["Author", "Post", "Tag", "_vein_link_Post_related", "_vein_link_Post_tags", "_vein_meta", "_vein_migrations"])
        #expect(try store.database.rows("SELECT fromVersion, toVersion FROM _vein_migrations ORDER BY seq") == [[.null, .text("1.0.0")], [.text("1.0.0"), .text("1.1.0")]])
        #expect(try store.database.rows("PRAGMA table_info(\"Tag\")").map { $0[1] } == [.text("_id"), .text("label")])
        // Writes work, the unique field and the cascade among them.
        let unique = try r.vein(["query", "shop.vein", "insert Tag(label: \"swift\")"] + key)
        #expect(unique.status != 0)
        #expect(try r.vein(["query", "shop.vein", "delete Author where name == \"Ada\""] + key).stdout
                == "deleted Author 01HZZ00000000000000000AAA1\ndeleted Post 01HZZ00000000000000000PPP1\ndeleted Post 01HZZ00000000000000000PPP2\n")
        #expect(try r.vein(["query", "shop.vein", "count Post"] + key).stdout == "1\n")
        #expect(try r.vein(["verify", "shop.vein"] + key).status == 0)
    }

    /// A file exported by vein 0.1.0 (interchange version 1, the key under "id") imports into a new store,
    /// which then exports it as version 2; and export → import → export gives the same bytes.
    @Test func interchangeVersionOneStillImports() throws {
        let r = try formatTwoStore()
        defer { r.cleanUp() }
        for (format, name) in [("json", "export.json"), ("jsonl", "export.jsonl")] {
            try #require(try r.vein(["create", "\(format).vein", "--schema", "shop-2.json5", "--plaintext"]).status == 0)
            let imported = try r.vein(["import", "\(format).vein", name])
            #expect(imported.stderr == "imported 7 records (Author 2, Post 3, Tag 2)\n", "\(imported.stdout)")
            let exported = try r.vein(["export", "\(format).vein", "--format", format, "-o", "again.\(format)"])
            #expect(exported.status == 0)
            #expect(try file(r, "again.\(format)") == Self.asVersion2(try file(r, name)))
            try #require(try r.vein(["create", "round.vein", "--schema", "shop-2.json5", "--plaintext"]).status == 0)
            #expect(try r.vein(["import", "round.vein", "again.\(format)"]).status == 0)
            #expect(try r.vein(["export", "round.vein", "--format", format]).stdout == (try file(r, "again.\(format)")))
            try FileManager.default.removeItem(atPath: r.path("round.vein"))
        }
        let unknown = try r.vein(["import", "json.vein", "-", "--upsert"], stdin: "{\"vein\":3,\"app\":\"com.example.shop\",\"schemaVersion\":\"1.1.0\",\"models\":{}}")
        #expect(unknown.status == 65)
        #expect(unknown.stderr.contains("the header: expected \"vein\": 2 (or 1), found 3"), "\(unknown.stderr)")
    }

    @Test func upgradeRefusesWhatItCannotConvert() throws {
        let r = try formatTwoStore()
        defer { r.cleanUp() }
        try #require(try r.vein(["create", "p.vein", "--schema", "shop-2.json5", "--plaintext"]).status == 0)
        for (format, message, hint) in [
            ("1", "p.vein uses store format 1, older than this vein (format 3); no released vein wrote it, so it cannot be opened",
             "recreate the store with this vein (export it with the vein that wrote it, then import)"),
            ("4", "p.vein uses store format 4, newer than this vein (format 3)", "upgrade vein to open it"),
        ] {
            _ = try r.run("/usr/bin/sqlite3", [r.path("p.vein"), "UPDATE _vein_meta SET value = '\(format)' WHERE key = 'formatVersion'"])
            let result = try r.vein(["upgrade", "p.vein"])
            #expect(result.status == 65)
            #expect(result.stderr == "vein: error: \(message)\nhint: \(hint)\n")
        }
    }

    /// kill -9 at each write `vein upgrade` makes (strace stops it at its Nth pwrite64): the store always
    /// opens whole, in format 2 or 3, and reads the same; the upgrade run again finishes it.
    @Test func killedAtAnyWriteTheStoreIsWholeInOneFormatOrTheOther() throws {
        let r = try formatTwoStore()
        defer { r.cleanUp() }
        let strace = "/usr/bin/strace"
        try #require(FileManager.default.isExecutableFile(atPath: strace), "strace is needed (scripts/setup installs it)")
        let pristine = try Data(contentsOf: URL(fileURLWithPath: r.path("shop.vein")))
        let expected = Self.asVersion2(try file(r, "export.json"))
        let key = ["--key-file", "shop.key"]
        let trace = try r.run(strace, ["-f", "-qq", "-e", "trace=pwrite64", "-o", r.path("trace"), VeinRunner.binary, "upgrade", "shop.vein"] + key)
        try #require(trace.status == 0, "\(trace.stderr)")
        let writes = try file(r, "trace").split(separator: "\n").filter { $0.contains("pwrite64(") }.count
        try #require(writes > 10)
        var seen: Set<String> = []
        for n in 1...writes {
            try pristine.write(to: URL(fileURLWithPath: r.path("shop.vein")))
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: r.path("shop.vein") + suffix) }
            let killed = try r.run(strace, ["-f", "-qq", "-o", "/dev/null", "-e", "trace=pwrite64", "-e", "inject=pwrite64:signal=KILL:when=\(n)",
                                            VeinRunner.binary, "upgrade", "shop.vein"] + key)
            #expect(killed.stdout.isEmpty, "write \(n)")
            let info = try r.vein(["info", "shop.vein", "--json"] + key).stdout
            let format = info.contains("\"formatVersion\": 3") ? "3" : info.contains("\"formatVersion\": 2") ? "2" : "?"
            seen.insert(format)
            #expect(format != "?", "write \(n): \(info)")
            #expect(try r.vein(["verify", "shop.vein"] + key).status == 0, "write \(n) at format \(format)")
            #expect(try r.vein(["export", "shop.vein"] + key).stdout == expected, "write \(n) at format \(format)")
            #expect(try r.vein(["upgrade", "shop.vein"] + key).status == 0, "write \(n) at format \(format)")
            #expect(try r.vein(["export", "shop.vein"] + key).stdout == expected, "write \(n), upgraded again")
        }
        #expect(seen == ["2", "3"])
    }
}
