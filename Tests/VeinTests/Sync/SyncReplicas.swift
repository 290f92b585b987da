import Foundation
@testable import Vein

/// Replicas of one sync through a folder relay (`dir/relay`), for the engine's sync tests: the first a new
/// plaintext store of the history tests' schema (`dir/a.vein`), written to by `seed` before the sync begins,
/// the others joined from the relay (`b.vein`, `c.vein`, …); the sync key in `dir/keyFile`.
final class SyncReplicas {
    let dir: TempDir
    let stores: [Store]
    let keyFile: String

    init(count: Int = 2, keyFile: String = "sync.key", seed: (ObjectContext) throws -> Void = { _ in }) throws {
        let dir = try TempDir()
        self.dir = dir
        self.keyFile = keyFile
        let manifest = try ManifestParser.parse(ChangeLogReplayTests.manifestText, file: "history.json5")
        _ = try StoreCreator.create(at: dir.path("a.vein"), manifest: manifest, protection: .plaintext, keepsChangeLog: true)
        let first = try Store.open(dir.path("a.vein"), keys: KeyOptions(keyring: nil))
        let seeding = ObjectContext(store: first)
        try seed(seeding)
        try seeding.save()
        try SyncSession.begin(first, relay: dir.path("relay"), keyFile: dir.path(keyFile))
        stores = try [first] + ["b", "c", "d", "e"].prefix(count - 1).map { try Self.join(dir, "\($0).vein", keyFile: dir.path(keyFile)) }
    }

    deinit { dir.cleanUp() }

    var a: Store { stores[0] }
    var b: Store { stores[1] }
    var c: Store { stores[2] }

    /// A new replica at `dir/name`, joined with the key in `keyFile`.
    static func join(_ dir: TempDir, _ name: String, keyFile: String) throws -> Store {
        _ = try SyncSession.join(relay: dir.path("relay"), keyFile: keyFile, to: dir.path(name), protection: { _ in .plaintext })
        let store = try Store.open(dir.path(name), keys: KeyOptions(keyring: nil))
        try SyncSession.adopt(store, relay: try SyncRelay.open(dir.path("relay")), keyFile: keyFile, keyring: nil)
        return store
    }

    func insert(_ store: Store, _ title: String) throws {
        let context = ObjectContext(store: store)
        _ = try context.insert("Post", ["title": .string(title), "views": .int(1)])
        try context.save()
    }

    func titles(_ store: Store) throws -> [String] {
        try store.database.rows(#"SELECT "title" FROM "Post" ORDER BY "title""#).compactMap { $0[0].string }
    }

    func session(_ store: Store) throws -> SyncSession { try SyncSession(store: store, keyring: nil) }
}
