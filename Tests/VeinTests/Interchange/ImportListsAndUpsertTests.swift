import Foundation
import Testing
@testable import Vein

/// What an import makes of records' lists and of `upsert` (issue 18, items 6 and 7): each record of the file
/// reads back as the file says, rows not in the file keep their own to-one values, and otherwise nothing
/// is written. In the fixture, `Item.children` is kept through `Item.parent` (a to-many of a one-to-many),
/// `Item.tags` holds the links of a many-to-many whose other side is `Tag.items`, `Item.twin` is one-to-one.
@Suite struct ImportListsAndUpsertTests {
    static let header = "{\"vein\":1,\"app\":\"test.interchange\",\"schemaVersion\":\"1.0.0\"}\n"
    static let good = "\"s\":\"x\",\"i\":1,\"d\":1.5,\"b\":true,\"t\":\"2026-01-31T12:00:00.000000Z\",\"e\":\"red\",\"n\":1"

    /// Ids that sort in the order of `n`, so that samples in messages have a known order.
    func id(_ n: Int) -> String { "01JDQ8ZK3M" + String(format: "%016d", n) }
    func item(_ n: Int, _ extra: String = "") -> String { "{\"model\":\"Item\",\"id\":\"\(id(n))\",\(Self.good)\(extra)}\n" }
    func tag(_ n: Int, _ extra: String = "") -> String { "{\"model\":\"Tag\",\"id\":\"\(id(n))\",\"name\":\"t\(n)\"\(extra)}\n" }
    func list(_ name: String, _ members: Int...) -> String { ",\"\(name)\":[" + members.map { "\"\(id($0))\"" }.joined(separator: ",") + "]" }
    func parent(_ n: Int) -> String { ",\"parent\":\"\(id(n))\"" }
    func jsonl(_ lines: String...) -> Data { Data((Self.header + lines.joined()).utf8) }

    /// The ids a relationship of the row holds, read by a fresh context.
    func members(_ store: Store, _ model: String, _ n: Int, _ relationship: String) throws -> [String] {
        let context = ObjectContext(store: store)
        let object = try #require(try context.object(model, id: id(n)))
        switch try object[relationship] {
        case .array(let values): return values.compactMap { if case .string(let s) = $0 { s } else { nil } }
        case .string(let s): return [s]
        default: return []
        }
    }

    @Test func aListThatLeavesOutARowStillNamingItsOwnerIsRefused() throws {
        let f = try InterchangeFixture()
        defer { f.dir.cleanUp() }
        let store = try f.newStore("a.vein")
        try f.importData(jsonl(item(1, list("children", 2, 3)), item(2, parent(1)), item(3, parent(1))), into: store, format: .jsonl)
        // The parent replaced with no children, while both still name it: refused, as a plain import refuses it.
        let none = importProblems { try f.importData(jsonl(item(1, list("children"))), into: store, format: .jsonl, upsert: true) }
        #expect(none == ["Item.parent: 2 rows are not listed back by Item.children (\(id(2)), \(id(3)))"])
        let omitted = importProblems { try f.importData(jsonl(item(1)), into: store, format: .jsonl, upsert: true) }
        #expect(omitted == none, "a list left out of the record is an empty list")
        let one = importProblems { try f.importData(jsonl(item(1, list("children", 3))), into: store, format: .jsonl, upsert: true) }
        #expect(one == ["Item.parent: 1 row is not listed back by Item.children (\(id(2)))"])
        #expect(try members(store, "Item", 1, "children") == [id(2), id(3)])
        let plain = importProblems { try f.importData(jsonl(item(4, list("children")), item(5, parent(4))), into: store, format: .jsonl) }
        #expect(plain == ["Item.parent: 1 row is not listed back by Item.children (\(id(5)))"])
        // With the row's own record saying it moved away, the list may leave it out.
        let summary = try f.importData(jsonl(item(1, list("children", 3)), item(2)), into: store, format: .jsonl, upsert: true)
        #expect(summary.records == ["Item": 2] && summary.replaced == ["Item": 2] && summary.totalInserted == 0)
        #expect(try members(store, "Item", 1, "children") == [id(3)])
        #expect(try members(store, "Item", 2, "parent") == [])
        #expect(try StoreVerifier.verify(store).isClean)
    }

    @Test func repeatsOfAnIdInOneFileAreRefusedAndCountsAreExact() throws {
        let f = try InterchangeFixture()
        defer { f.dir.cleanUp() }
        let store = try f.newStore("a.vein")
        try f.importData(jsonl(item(1)), into: store, format: .jsonl)
        let twice = item(2).replacingOccurrences(of: "\"i\":1", with: "\"i\":7")
        let upserted = importProblems { try f.importData(jsonl(item(2), twice, item(1), item(2)), into: store, format: .jsonl, upsert: true) }
        #expect(upserted == ["Item: 2 records repeat ids of earlier records of the file (\(id(2)))"])
        let plain = importProblems { try f.importData(jsonl(item(2), twice), into: store, format: .jsonl) }
        #expect(plain == ["line 3.id: id \(id(2)) is already used by an earlier record of the file"])
        #expect(try store.database.scalar("SELECT count(*) FROM Item") == .integer(1))
        let summary = try f.importData(jsonl(twice, item(1).replacingOccurrences(of: "\"i\":1", with: "\"i\":8"), item(3)),
                                       into: store, format: .jsonl, upsert: true)
        #expect(summary.records == ["Item": 3] && summary.replaced == ["Item": 1] && summary.totalInserted == 2)
        #expect(try store.database.scalar("SELECT count(*) FROM Item") == .integer(3))
        #expect(try store.database.scalar("SELECT i FROM Item WHERE _id = ?1", [.text(id(1))]) == .integer(8))
    }

    /// `INSERT OR REPLACE` also deletes any other row holding one of the record's unique values.
    @Test func anUpsertNeverDeletesAnotherRowThroughAUniqueValue() throws {
        let f = try InterchangeFixture()
        defer { f.dir.cleanUp() }
        let store = try f.newStore("a.vein")
        try f.importData(jsonl(item(1, ",\"slug\":\"s\"")), into: store, format: .jsonl)
        let found = importProblems { try f.importData(jsonl(item(2, ",\"slug\":\"s\"")), into: store, format: .jsonl, upsert: true) }
        #expect(found == ["line 2.slug: Item \(id(2)): another Item already has this slug (slug is unique)"])
        #expect(try store.database.scalar("SELECT _id FROM Item") == .text(id(1)))
        // Its own unique value moves with it.
        try f.importData(jsonl(item(1, ",\"slug\":\"t\""), item(2, ",\"slug\":\"s\"")), into: store, format: .jsonl, upsert: true)
        #expect(try store.database.rows("SELECT _id, slug FROM Item ORDER BY _id") == [[.text(id(1)), .text("t")], [.text(id(2)), .text("s")]])
    }

    @Test func aReplacedRowKeepsItsPlaceWhileItNamesTheSameOwner() throws {
        let f = try InterchangeFixture()
        defer { f.dir.cleanUp() }
        let store = try f.newStore("a.vein")
        try f.importData(jsonl(item(1, list("children", 2, 3, 4)), item(2, parent(1)), item(3, parent(1)), item(4, parent(1)), item(5)),
                         into: store, format: .jsonl)
        try f.importData(jsonl(item(2, parent(1))), into: store, format: .jsonl, upsert: true)
        #expect(try members(store, "Item", 1, "children") == [id(2), id(3), id(4)])
        // Moved to an owner not in the file: at the end of its list.
        try f.importData(jsonl(item(3, parent(5))), into: store, format: .jsonl, upsert: true)
        #expect(try members(store, "Item", 1, "children") == [id(2), id(4)])
        #expect(try members(store, "Item", 5, "children") == [id(3)])
        #expect(try StoreVerifier.verify(store).isClean)
    }

    @Test func theOtherSideOfAManyToManyFollowsItsRecordAndBothSidesMustAgree() throws {
        let f = try InterchangeFixture()
        defer { f.dir.cleanUp() }
        let store = try f.newStore("a.vein")
        try f.importData(jsonl(tag(1, list("items", 3)), tag(2, list("items", 3)), item(3, list("tags", 1, 2))), into: store, format: .jsonl)
        // Tag 1 replaced with no items: item 3 (not in the file) loses it, as a list of Item.tags would.
        try f.importData(jsonl(tag(1, list("items"))), into: store, format: .jsonl, upsert: true)
        #expect(try members(store, "Tag", 1, "items") == [])
        #expect(try members(store, "Item", 3, "tags") == [id(2)])
        // Tag 1 lists item 3 again: linked at the end of the item's list.
        try f.importData(jsonl(tag(1, list("items", 3))), into: store, format: .jsonl, upsert: true)
        #expect(try members(store, "Item", 3, "tags") == [id(2), id(1)])
        #expect(try StoreVerifier.verify(store).isClean)
        // Both sides in the file must agree, either way round.
        let tagOnly = importProblems { try f.importData(jsonl(tag(4, list("items", 5)), item(5, list("tags"))), into: store, format: .jsonl) }
        #expect(tagOnly == ["Tag.items: 1 row is not listed back by Item.tags (\(id(4)))"])
        let itemOnly = importProblems { try f.importData(jsonl(item(6, list("tags", 7)), tag(7, list("items"))), into: store, format: .jsonl) }
        #expect(itemOnly == ["Tag.items: 1 row leaves out Item rows that list it in Item.tags (\(id(7)))"])
    }

    /// A one-to-one names back both ways; a record cannot change the other row's own to-one.
    @Test func aOneToOneMustNameBack() throws {
        let f = try InterchangeFixture()
        defer { f.dir.cleanUp() }
        let store = try f.newStore("a.vein")
        try f.importData(jsonl(item(1, ",\"twin\":\"\(id(2))\""), item(2, ",\"twin\":\"\(id(1))\"")), into: store, format: .jsonl)
        let found = importProblems { try f.importData(jsonl(item(1)), into: store, format: .jsonl, upsert: true) }
        #expect(found == ["Item.twin: 1 row is not listed back by Item.twin (\(id(2))); every id must be in the file or the store"])
    }

    @Test func identicalProblemsAreOneLineNamingEachRecord() throws {
        let f = try InterchangeFixture()
        defer { f.dir.cleanUp() }
        let store = try f.newStore("a.vein")
        let slug = ",\"slug\":\"s\""
        let found = importProblems {
            try f.importData(jsonl(item(1, slug), item(2, slug), item(3, slug), item(1), item(1), item(4).replacingOccurrences(of: "\"i\":1", with: "\"i\":\"x\"")),
                             into: store, format: .jsonl)
        }
        #expect(found == [
            "Item.slug: 2 records: another Item already has this slug (slug is unique): line 3 (\(id(2))), line 4 (\(id(3)))",
            "Item: 2 records repeat ids of earlier records of the file (\(id(1)))",
            "line 7.i: expected an integer, found a string",
        ])
        let typed = String(repeating: item(5).replacingOccurrences(of: "\"i\":1", with: "\"i\":\"x\""), count: 3)
        #expect(importProblems { try f.importData(jsonl(typed), into: store, format: .jsonl) }
                == ["Item.i: 3 records: expected an integer, found a string (line 2, line 3, line 4)"])
        let unknown = String(repeating: "{\"model\":\"Itme\",\"id\":\"\(id(5))\"}\n", count: 2)
        #expect(importProblems { try f.importData(jsonl(unknown), into: store, format: .jsonl) }
                == ["the file: 2 records: unknown model \"Itme\" (did you mean \"Item\"?) (line 2, line 3)"])
        // Twenty-one records with one problem: one line, and reading stopped at twenty.
        do {
            try f.importData(Data((Self.header + (6..<28).map { item($0, slug) }.joined()).utf8), into: store, format: .jsonl)
            Issue.record("accepted")
        } catch let e as ImportError {
            #expect(e.stoppedEarly)
            #expect(e.problems.map(\.description) == ["Item.slug: 20 records: another Item already has this slug (slug is unique): line 3 (\(id(7))), "
                                                      + "line 4 (\(id(8))), line 5 (\(id(9))), line 6 (\(id(10))), line 7 (\(id(11))), …"])
        }
    }

    /// A failure to read the input is about the input, not its JSON: a directory is no file to import.
    @Test func aReadErrorIsAFileError() throws {
        let f = try InterchangeFixture()
        defer { f.dir.cleanUp() }
        let store = try f.newStore("a.vein")
        let fd = open(f.dir.path(""), O_RDONLY)
        defer { close(fd) }
        var importer = StoreImporter(store: store)
        importer.format = .jsonl
        #expect(throws: FileError.unreadable("dir", reason: "it is a directory")) { try importer.importRecords(from: fd, file: "dir") }
    }

    /// What waits for the last record waits in a scratch database, attached for the import only; the
    /// connection's temp_store (memory: SQLCipher would write its TEMP database unencrypted) is unchanged.
    @Test func theScratchDatabaseIsGoneAfterTheImport() throws {
        let f = try InterchangeFixture()
        defer { f.dir.cleanUp() }
        let store = try f.newStore("a.vein")
        let before = try store.database.scalar("PRAGMA temp_store")
        try f.importData(jsonl(item(1, list("children", 2)), item(2, parent(1))), into: store, format: .jsonl)
        _ = importProblems { try f.importData(jsonl(item(3, list("children", 4))), into: store, format: .jsonl) }
        #expect(try store.database.rows("PRAGMA database_list").map { $0[1] } == [.text("main")])
        #expect(try store.database.scalar("PRAGMA temp_store") == before)
    }
}
