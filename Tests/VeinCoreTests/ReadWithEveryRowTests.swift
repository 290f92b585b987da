import Foundation
import Testing
import Vein
import VeinCore

/// A required field whose Swift type has no empty value is read with every row by a typed context, lazy
/// or not: once its row is gone or its container closed, it still reads its value (it stopped the
/// program: there was nothing to return). Lazy fields that have an empty value stay lazy.
@Suite struct ReadWithEveryRowTests {
    typealias Scan = ReadWithEveryRowSchema.Scan
    typealias Folder = ReadWithEveryRowSchema.Folder

    /// A saved scan in a folder, and a context of its own for the test.
    static func saved() throws -> (ModelContainer, VeinCore.ModelContext) {
        let container = try ModelContainer(for: ReadWithEveryRowSchema.self, at: nil, appID: "com.example.readwithrow")
        let scan = Scan(title: "receipt")
        scan.folder = Folder(name: "bills")
        container.context.insert(scan)
        try container.context.save()
        return (container, container.newContext())
    }

    static func expectValues(_ scan: Scan) {
        #expect(scan.page == ReadWithEveryRowSchema.Page(number: 7, text: "seven"))
        #expect(scan.quality == .final)
        #expect(scan.size == ReadWithEveryRowSchema.Size(width: 210, height: 297))
    }

    /// Deletes every scan in another context of `container`, and saves.
    static func deleteElsewhere(_ container: ModelContainer) throws {
        let other = container.newContext()
        for scan in try other.fetch(Scan.self) { other.delete(scan) }
        try other.save()
    }

    @Test func deletedByAnotherContext() throws {
        let (container, context) = try Self.saved()
        let scan = try #require(try context.fetch(Scan.self).first)
        try Self.deleteElsewhere(container)
        Self.expectValues(scan)
        #expect(scan.image == Data(), "a lazy field with an empty value reads it")
    }

    @Test func deletedHereAndSaved() throws {
        let (container, context) = try Self.saved()
        defer { withExtendedLifetime(container) {} }  // an in-memory store goes with its container
        let scan = try #require(try context.fetch(Scan.self).first)
        context.delete(scan)
        try context.save()
        Self.expectValues(scan)
    }

    @Test func containerClosed() throws {
        let (container, context) = try Self.saved()
        let scan = try #require(try context.fetch(Scan.self).first)
        try container.close()
        Self.expectValues(scan)
    }

    /// Reached through a relationship, and through its identifier, the row is read whole as well.
    @Test func reachedThroughARelationshipOrItsIdentifier() throws {
        let (container, context) = try Self.saved()
        let scans = try #require(try context.fetch(Folder.self).first).scans
        let byID = try #require(try container.newContext().model(for: scans[0].persistentModelID) as? Scan)
        try Self.deleteElsewhere(container)
        Self.expectValues(try #require(scans.first))
        Self.expectValues(byID)
    }

    /// `propertiesToFetch` names the columns a fetch reads: these come too.
    @Test func readEvenWhenPropertiesToFetchLeavesThemOut() throws {
        let (container, context) = try Self.saved()
        let log = try StatementLog(context)
        var descriptor = FetchDescriptor<Scan>()
        descriptor.propertiesToFetch = [\.title]
        let scan = try #require(try context.fetch(descriptor).first)
        #expect(log.take() == ["SELECT \"Scan\".\"_id\", \"Scan\".\"title\", \"Scan\".\"size\", \"Scan\".\"page\", \"Scan\".\"quality\" "
            + "FROM \"Scan\" ORDER BY \"Scan\".\"_id\" ASC"])
        try Self.deleteElsewhere(container)
        Self.expectValues(scan)
    }

    /// The fetch reads the fields without an empty value with the row, and only those of the lazy ones:
    /// `image` and `caption` are each read by a statement of their own, on first access.
    @Test func lazyFieldsWithAnEmptyValueStayLazy() throws {
        let (container, context) = try Self.saved()
        defer { withExtendedLifetime(container) {} }  // an in-memory store goes with its container
        let log = try StatementLog(context)
        let scan = try #require(try context.fetch(Scan.self).first)
        let fetch = log.take()
        #expect(fetch.count == 1)
        #expect(fetch.first?.hasPrefix("SELECT \"Scan\".\"_id\", \"Scan\".\"title\", \"Scan\".\"size\", \"Scan\".\"page\", "
            + "\"Scan\".\"quality\", \"Scan\".\"folder\" FROM \"Scan\"") == true, "\(fetch)")
        Self.expectValues(scan)
        #expect(log.take().isEmpty)
        #expect(scan.image == Data([1, 2]))
        #expect(scan.caption == nil)
        #expect(log.take().count == 2)
    }
}
