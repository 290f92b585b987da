import Foundation
import Testing
import Vein

/// Values in the forms Vein stores them, seen from the command line: a condition's text literal is
/// compared as Swift compares it (NFC stored, NFD typed), and dates at the end of the four-digit years
/// survive export → import → export byte for byte.
@Suite struct ValueFormsTests {
    func store(_ r: VeinRunner, _ name: String = "b.vein") throws {
        try #require(try r.vein(["create", name, "--schema", VeinRunner.exampleManifest, "--key-file", "k"]).status == 0)
    }

    func q(_ r: VeinRunner, _ statement: String, _ store: String = "b.vein") throws -> VeinRunner.Result {
        try r.vein(["query", store, statement, "--key-file", "k"])
    }

    @Test func aDecomposedLiteralFindsTheStoredText() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try store(r)
        #expect(try q(r, #"insert Post(title: "Café", content: "x")"#).status == 0)
        #expect(try q(r, #"insert Post(title: "Cafe", content: "👍🏽")"#).status == 0)
        // As an escape and typed raw (a combining accent after "e"), with == and in a list.
        #expect(try q(r, #"count Post where title == "Cafe\u{301}""#).stdout == "1\n")
        #expect(try q(r, "count Post where title == \"Cafe\u{301}\"").stdout == "1\n")
        #expect(try q(r, #"count Post where ["Cafe\u{301}"].contains(title)"#).stdout == "1\n")
        // A literal that starts with a combining accent; contains compares Characters; "" is everywhere.
        #expect(try q(r, "count Post where title.contains(\"\u{301}\")").stdout == "0\n")
        #expect(try q(r, #"count Post where content.contains("🏽")"#).stdout == "0\n")
        #expect(try q(r, #"count Post where content.contains("")"#).stdout == "2\n")
        // An NFD value inserted is stored in NFC, and the NFC literal finds it too.
        #expect(try q(r, #"update Post where title == "Cafe" set title = "Cafe\u{301}s""#).status == 0)
        #expect(try q(r, #"count Post where title == "Cafés""#).stdout == "1\n")
    }

    @Test func theLastDateOfYear9999RoundTrips() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try store(r, "a.vein")
        for date in ["9999-12-31T23:59:59.999999Z", "0001-01-01T00:00:00.000000Z", "1969-12-31T23:59:59.999999Z", "2000-02-29T00:00:00.000001Z"] {
            let inserted = try q(r, #"insert Post(title: "\#(date)", content: "x", publishedAt: #date("\#(date)"))"#, "a.vein")
            #expect(inserted.status == 0, "\(inserted.stderr)")
        }
        let first = try r.vein(["export", "a.vein", "--key-file", "k"])
        #expect(first.status == 0)
        for date in ["9999-12-31T23:59:59.999999Z", "0001-01-01T00:00:00.000000Z", "1969-12-31T23:59:59.999999Z", "2000-02-29T00:00:00.000001Z"] {
            #expect(first.stdout.contains("\"publishedAt\":\"\(date)\""), "\(date)")
        }
        #expect(!first.stdout.contains(":000-"))
        try r.write("a.json", first.stdout)
        let imported = try r.vein(["import", "b.vein", "a.json", "--create", "--schema", VeinRunner.exampleManifest, "--key-file", "k"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let second = try r.vein(["export", "b.vein", "--key-file", "k"])
        #expect(second.stdout == first.stdout)
        #expect(try q(r, #"count Post where publishedAt == #date("9999-12-31T23:59:59.999999Z")"#).stdout == "1\n")
    }
}
