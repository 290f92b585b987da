import Foundation
import Testing

/// Arguments in the wrong order, and files that are not stores where a store is expected: the error
/// says what the file is (never "wrong key"), and where another argument is the store, the hint shows
/// the command with the store first (exit 64). Nothing is written.
@Suite struct ArgumentOrderTests {
    /// b.vein (encrypted, key in k) and data.json, an export of it.
    func storeAndExport() throws -> VeinRunner {
        let r = try VeinRunner.blogStore()
        #expect(try r.query(#"insert Post(title: "kept", content: "x")"#).status == 0)
        #expect(try r.vein(["export", "b.vein", "-o", "data.json", "--key-file", "k"]).status == 0)
        return r
    }

    func bytes(_ r: VeinRunner, _ name: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: r.path(name))) }

    /// Before: "cannot decrypt data.json with the key from key file k: wrong key or not a Vein store" (77),
    /// or without a key "no key for …/data.json" (69).
    @Test func importWithTheRecordsFirst() throws {
        let r = try storeAndExport()
        defer { r.cleanUp() }
        let store = try bytes(r, "b.vein")
        var result = try r.vein(["import", "data.json", "b.vein", "--key-file", "k"])
        #expect(result.status == 64)
        #expect(result.stderr == """
            vein: error: data.json is a JSON file, not a store
            hint: the store comes first: vein import b.vein data.json --key-file k

            """)
        result = try r.vein(["import", "data.json", "b.vein"])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("vein: error: data.json is a JSON file, not a store\nhint: the store comes first: vein import b.vein data.json\n"))
        // To a new store: the records file named first is not the store to create.
        result = try r.vein(["import", "data.json", "new.vein", "--create", "--schema", VeinRunner.exampleManifest, "--key-file", "new.key"])
        #expect(result.status == 64)
        #expect(result.stderr == """
            vein: error: no such file: new.vein
            hint: the store comes first: vein import new.vein data.json --create --schema \(VeinRunner.exampleManifest) --key-file new.key

            """)
        #expect(!r.exists("new.vein") && !r.exists("new.key"))
        #expect(try bytes(r, "b.vein") == store)
    }

    /// Before: "no such store: count Post" with the hint "create one with 'vein create count Post --schema MANIFEST'".
    @Test func queryWithTheStatementFirst() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        var result = try r.vein(["query", "count Post", "b.vein", "--key-file", "k"])
        #expect(result.status == 64)
        #expect(result.stderr == """
            vein: error: no such store: count Post
            hint: the store comes first: vein query b.vein 'count Post' --key-file k

            """)
        result = try r.vein(["query", #"Post where title == "it's""#, "missing.vein"])
        #expect(result.status == 64)
        #expect(result.stderr == """
            vein: error: no such store: Post where title == "it's"
            hint: 'Post where title == "it'\\''s"' looks like a statement, not a store: the store comes first (vein query STORE STATEMENT)

            """)
        #expect(!r.exists("count Post"))
    }

    /// The copies take the store first and a new file second; swapped, the store must not be touched.
    @Test func copiesWithTheDestinationFirst() throws {
        let r = try storeAndExport()
        defer { r.cleanUp() }
        #expect(try r.vein(["decrypt", "b.vein", "plain.vein", "--key-file", "k"]).status == 0)
        let store = try bytes(r, "b.vein"), plain = try bytes(r, "plain.vein")
        for (command, storeName) in [("backup", "b.vein"), ("decrypt", "b.vein"), ("encrypt", "plain.vein")] {
            let result = try r.vein([command, "copy.vein", storeName])
            #expect(result.status == 64, "\(command)")
            #expect(result.stderr == "vein: error: no such store: copy.vein\nhint: the store comes first: vein \(command) \(storeName) copy.vein\n",
                    "\(command)")
        }
        // export's output is an option: swapped with the store, the store is not written over.
        let result = try r.vein(["export", "out.json", "-o", "b.vein", "--key-file", "k"])
        #expect(result.status == 64)
        #expect(result.stderr == "vein: error: no such store: out.json\nhint: the store comes first: vein export b.vein --output out.json --key-file k\n")
        #expect(try bytes(r, "b.vein") == store && bytes(r, "plain.vein") == plain)
        #expect(!r.exists("copy.vein") && !r.exists("out.json"))
    }

    /// Before: "s.vein is not UTF-8 text" (65), about the store given as the plan.
    @Test func migrateWithThePlanAsTheStore() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        let result = try r.vein(["migrate", MigrateCommandTests.plan, "--plan", "b.vein", "--key-file", "k"])
        #expect(result.status == 64)
        #expect(result.stderr == """
            vein: error: b.vein is not UTF-8 text
            hint: the store comes first: vein migrate b.vein --plan \(MigrateCommandTests.plan) --key-file k

            """)
    }

    /// With no store among the arguments there is nothing to swap: the file is named for what it is (65),
    /// before any key is looked for. Before: "wrong key" (77), "already encrypted" (65), "no key" (69).
    @Test func aTextFileWhereAStoreIsExpected() throws {
        let r = try storeAndExport()
        defer { r.cleanUp() }
        try r.write("notes.txt", "groceries: milk, eggs\n")
        try r.write("blog.json5", "// a manifest\n{ vein: 1 }\n")
        for (arguments, message) in [(["info", "data.json", "--key-file", "k"], "data.json is a JSON file, not a store"),
                                     (["verify", "blog.json5"], "blog.json5 is a JSON file, not a store"),
                                     (["schema", "notes.txt", "--key-file", "k"], "notes.txt is a text file, not a store"),
                                     (["key", "status", "notes.txt", "--key-file", "k"], "notes.txt is a text file, not a store"),
                                     (["encrypt", "data.json", "copy.vein"], "data.json is a JSON file, not a store"),
                                     (["import", "data.json", "notes.txt", "--key-file", "k"], "data.json is a JSON file, not a store")] {
            let result = try r.vein(arguments)
            #expect(result.status == 65, "\(arguments)")
            #expect(result.stderr == "vein: error: \(message)\n", "\(arguments)")
        }
        #expect(!r.exists("copy.vein"))
    }

    /// A store where text is read, with nothing to swap it with: the hint says what the argument is for;
    /// a key file in the store's place and the store given as --key-file are swapped back.
    @Test func aStoreWhereTextIsRead() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        var result = try r.vein(["migrate", "check", "b.vein"])
        #expect(result.status == 65)
        #expect(result.stderr == "vein: error: b.vein is not UTF-8 text\nhint: b.vein looks like a store; PLAN is the migration plan\n")
        result = try r.vein(["create", "new.vein", "--schema", "b.vein", "--key-file", "new.key"])
        #expect(result.status == 65)
        #expect(result.stderr == "vein: error: b.vein is not UTF-8 text\nhint: b.vein looks like a store; --schema is the schema manifest\n")
        #expect(!r.exists("new.vein") && !r.exists("new.key"))
        result = try r.vein(["info", "k", "--key-file", "b.vein"])
        #expect(result.status == 64)
        #expect(result.stderr == "vein: error: k is a text file, not a store\nhint: the store comes first: vein info b.vein --key-file k\n")
    }

    /// Before: "line 1, column 1: unexpected byte 0x97, expected '{'" for a store (or any binary file) given
    /// as the records to import, the store itself included. The store is untouched.
    @Test func aStoreGivenAsTheRecordsToImport() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        try FileManager.default.copyItem(atPath: r.path("b.vein"), toPath: r.path("copy.vein"))
        let before = try Data(contentsOf: URL(fileURLWithPath: r.path("b.vein")))
        for records in ["b.vein", "copy.vein"] {
            let result = try r.vein(["import", "b.vein", records, "--key-file", "k"])
            #expect(result.status == 65)
            #expect(result.stderr == "vein: error: \(records) is not UTF-8 text\nhint: \(records) looks like a store; FILE is the records to read\n")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: r.path("b.vein"))) == before)
        #expect(try r.query("count Post").stdout == "0\n")
    }

    /// Before: a store path of one character crashed (signal 4) in Foundation's deletingLastPathComponent.
    @Test func aOneCharacterStorePathOpens() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        #expect(try r.vein(["create", "b", "--schema", VeinRunner.exampleManifest, "--plaintext"]).status == 0)
        let info = try r.vein(["info", "b"])
        #expect(info.status == 0, "\(info.stderr)")
        try r.write("k", "not a store\n")
        let text = try r.vein(["info", "k"])
        #expect(text.status == 65)
        #expect(text.stderr == "vein: error: k is a text file, not a store\n")
    }
}
