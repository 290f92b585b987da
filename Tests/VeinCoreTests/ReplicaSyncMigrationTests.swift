import Foundation
import Testing
@testable import Vein
@testable import VeinCore

/// An app that migrates a synced store (`ModelContainer.migrate`) crosses the sync's migration with its
/// plan when it syncs (docs/sync.md#migrations): the first publishes it, the next starts from it with its
/// own changes, and an app still at the old schema hears why it no longer syncs.
@Suite struct ReplicaSyncMigrationTests {
    static let app = "com.example.blog"

    @Test func appsMigratedByTheirPlanCrossTheSyncsMigration() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        func old(_ name: String) throws -> ModelContainer {
            try ModelContainer(V0_0_1.self, plan: FirstBlogMigration.self, at: "\(folder)/\(name).vein", appID: Self.app,
                               keyProvider: KeyFileKeyProvider(path: "\(folder)/\(name).key"), keepsHistory: true)
        }
        func new(_ name: String) throws -> ModelContainer {
            let container = try ModelContainer(BlogV0_0_2.self, plan: BlogMigration.self, at: "\(folder)/\(name).vein", appID: Self.app,
                                               keyProvider: KeyFileKeyProvider(path: "\(folder)/\(name).key"), keepsHistory: true)
            try container.migrate()
            return container
        }
        let a = try old("a")
        a.context.insert(Post(title: "shared", content: "from the start"))
        try a.context.save()
        try SyncSession.begin(a.store, relay: "\(folder)/relay", keyFile: "\(folder)/sync.key")
        _ = try SyncSession.join(relay: "\(folder)/relay", keyFile: "\(folder)/sync.key", to: "\(folder)/b.vein",
                                 protection: { _ in .encrypted(KeyOptions(keyFile: "\(folder)/b.key", environment: [:], keyring: nil)) })
        let b = try old("b")
        try SyncSession.adopt(b.store, relay: try SyncRelay.open("\(folder)/relay"), keyFile: "\(folder)/sync.key")
        b.context.insert(Post(title: "written on b", content: "before b's update"))
        try b.context.save()
        try a.close()
        try b.close()

        // a's app updates first: its sync publishes the migration.
        let a2 = try new("a")
        let syncA = try a2.sync(every: .seconds(3600))
        defer { syncA.stop() }
        try syncA.syncNow()
        // b's old app is told why it stops.
        let b1 = try old("b")
        let syncB1 = try b1.sync(every: .seconds(3600))
        #expect(throws: SyncError.mustMigrate("\(folder)/relay", migration: 1, version: "0.0.1")) { try syncB1.syncNow() }
        syncB1.stop()
        try b1.close()
        // b's app updates: its post is carried across, and reaches a.
        let b2 = try new("b")
        let syncB = try b2.sync(every: .seconds(3600))
        defer { syncB.stop() }
        #expect(try syncB.syncNow().sent == 1)
        try syncA.syncNow()
        let titles = try a2.context.fetch(FetchDescriptor<BlogV0_0_2.Post>(sortBy: [SortDescriptor(\.title)])).map(\.title)
        #expect(titles == ["shared", "written on b"])
        #expect(try b2.context.fetch(FetchDescriptor<BlogV0_0_2.Post>()).map(\.summary).sorted() == ["shared", "written on b"])
    }
}
