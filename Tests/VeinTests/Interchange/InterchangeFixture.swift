import Foundation
import Testing
@testable import Vein

/// A store with every field type and every relationship shape, for export and import.
struct InterchangeFixture {
    static let manifestText = """
        { vein: 1, app: "test.interchange", version: "1.0.0", models: {
            Item: { fields: { s: "string", i: "int", d: "double", b: "bool", t: "date", blob: "data? lazy", u: "uuid?",
                              e: { type: "enum", values: ["red", "green"] }, n: { type: "enum", values: [1, 2, 3] },
                              j: "json?", opt: "string?", slug: "string? unique" },
                    relationships: { parent: { to: "Item", inverse: "children" }, children: { to: "Item", many: true, inverse: "parent" },
                                     tags: { to: "Tag", many: true, inverse: "items" }, twin: { to: "Item", inverse: "twin" } } },
            Tag: { fields: { name: "string" }, relationships: { items: { to: "Item", many: true, inverse: "tags" } } },
        } }
        """
    let dir: TempDir
    let manifest: SchemaManifest

    init() throws {
        dir = try TempDir()
        manifest = try ManifestParser.parse(Self.manifestText, file: "interchange.json5")
    }

    func newStore(_ name: String) throws -> Store {
        _ = try StoreCreator.create(at: dir.path(name), manifest: manifest, protection: .plaintext)
        return try Store.open(dir.path(name), keys: KeyOptions(keyring: nil))
    }

    /// A store holding nils, unicode, empty strings, extreme numbers, a large blob and links of every kind.
    func populated(_ name: String) throws -> Store {
        let store = try newStore(name)
        let context = ObjectContext(store: store)
        let tags = try (0..<3).map { try context.insert("Tag", ["name": .string("tag \($0)")]) }
        var items: [ModelObject] = []
        let strings = ["", "plain", "ümlaut ß 日本語 🎉", "quote \" backslash \\ tab \t newline \n", "\u{0001}control"]
        for k in 0..<12 {
            var values: [String: Value] = [
                "s": .string(strings[k % strings.count]), "i": .int([0, 1, -1, .max, .min, 42][k % 6]),
                "d": .double([0, -0.5, 1e300, 5e-324, 3.141592653589793, 1.0 / 3][k % 6]), "b": .bool(k % 2 == 0),
                "t": .date(1_700_000_000.123456 + Double(k)), "e": .string(k % 2 == 0 ? "red" : "green"), "n": .int(Int64(k % 3 + 1)),
            ]
            if k % 3 == 0 { values["blob"] = .data(Data((0..<(k == 0 ? 300_000 : 10)).map { UInt8(truncatingIfNeeded: $0 &* 7) })) }
            if k % 2 == 1 { values["u"] = .string("E621E1F8-C36C-495A-93FC-0C247A3E6E5F") }
            if k % 4 == 1 { values["j"] = .string("{\"b\":[1,2.5,null,true],\"a\":\"x\"}") }
            if k % 5 == 2 { values["slug"] = .string("slug-\(k)") }
            let item = try context.insert("Item", values)
            items.append(item)
            if k > 0 { try item.set("parent", .string(items[0].id)) }
            try item.set("tags", .array(tags.prefix(k % 4).map { .string($0.id) }))
        }
        try items[1].set("twin", .string(items[2].id))
        try context.save()
        return store
    }

    func export(_ store: Store, format: InterchangeFormat = .json, models: [String] = [], condition: String? = nil) throws -> Data {
        let path = dir.path("export-\(ULID.make()).\(format.rawValue)")
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        defer { close(fd) }
        var exporter = StoreExporter(store: store)
        exporter.format = format
        exporter.models = models
        exporter.condition = condition
        try exporter.export(to: fd)
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    @discardableResult
    func importData(_ data: Data, into store: Store, format: InterchangeFormat = .json, upsert: Bool = false) throws -> InterchangeSummary {
        let path = dir.path("import-\(ULID.make())")
        try data.write(to: URL(fileURLWithPath: path))
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        var importer = StoreImporter(store: store)
        importer.format = format
        importer.upsert = upsert
        return try importer.importRecords(from: fd, file: "in.json")
    }
}

/// The problems an import reports (or a test failure when it succeeds).
func importProblems(_ body: () throws -> Void) -> [String] {
    do {
        try body()
        Issue.record("the import succeeded")
    } catch let e as ImportError {
        return e.problems.map(\.description)
    } catch {
        Issue.record("unexpected error \(error)")
    }
    return []
}
