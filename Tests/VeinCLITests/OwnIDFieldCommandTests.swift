import Foundation
import Testing

/// In the CLI language `_id` is the row key; `id` is the model's field when it has one, and the row key
/// when it has none (scripts written for vein 1.0 keep working).
@Suite struct OwnIDFieldCommandTests {
    static let manifest = """
        { vein: 1, app: "com.example.notes", version: "1.0.0",
          models: { Note: { fields: { id: "string", text: "string" } },
                    Plain: { fields: { text: "string" } } } }
        """

    @Test func idIsTheFieldWhenThereIsOneAndTheRowKeyOtherwise() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try Self.manifest.write(toFile: r.path("m.json5"), atomically: true, encoding: .utf8)
        try #require(try r.vein(["create", "n.vein", "--schema", "m.json5", "--plaintext"]).status == 0)
        var keys: [String: String] = [:]
        for (model, values) in [("Note", "id: \"b\", text: \"second\""), ("Note", "id: \"a\", text: \"first\""), ("Plain", "text: \"x\""), ("Plain", "text: \"y\"")] {
            let inserted = try r.vein(["query", "n.vein", "insert \(model)(\(values))"])
            try #require(inserted.status == 0, "\(inserted.stderr)")
            keys[values] = String(inserted.stdout.split(separator: " ")[2].dropLast())
        }
        let b = keys["id: \"b\", text: \"second\""]!, a = keys["id: \"a\", text: \"first\""]!
        let x = keys["text: \"x\""]!, y = keys["text: \"y\""]!

        #expect(try r.vein(["query", "n.vein", "Note sort id"]).stdout == """
            _id                         id  text
            \(a)  a   first
            \(b)  b   second

            """)
        #expect(try r.vein(["query", "n.vein", "Note where id == \"b\" sort _id", "--format", "jsonl"]).stdout
                == "{\"_id\":\"\(b)\",\"id\":\"b\",\"text\":\"second\"}\n")
        #expect(try r.vein(["query", "n.vein", "Note where _id == #id(\"\(a)\")", "--format", "csv"]).stdout == "_id,id,text\n\(a),a,first\n")
        // No field named id: id is the row key, in conditions and sort keys.
        #expect(try r.vein(["query", "n.vein", "Plain where id != #id(\"\(x)\") sort id desc", "--format", "csv"]).stdout == "_id,text\n\(y),y\n")
        #expect(try r.vein(["query", "n.vein", "Plain sort id desc", "--format", "csv"]).stdout == "_id,text\n\(y),y\n\(x),x\n")
        #expect(try r.vein(["query", "n.vein", "Plain sort _id desc", "--format", "csv"]).stdout == "_id,text\n\(y),y\n\(x),x\n")
        let wrong = try r.vein(["query", "n.vein", "Note where id == #id(\"\(a)\")"])
        #expect(wrong.status == 65 && wrong.stderr.hasPrefix("vein: error: cannot compare String with ID"), "\(wrong.stderr)")

        let export = try r.vein(["export", "n.vein"])
        #expect(export.stdout == """
            {"vein":2,"app":"com.example.notes","schemaVersion":"1.0.0","models":{
            "Note":[
            {"_id":"\(b)","id":"b","text":"second"},
            {"_id":"\(a)","id":"a","text":"first"}],
            "Plain":[
            {"_id":"\(x)","text":"x"},
            {"_id":"\(y)","text":"y"}]
            }}

            """)
    }
}
