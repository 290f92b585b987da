import Foundation
import Testing
import Vein
import VeinCore

/// `DatabaseKeyProvider`s: where the container's key comes from, and the CLI finding it the same way.
@Suite struct KeyProviderTests {
    static let app = "com.example.blog"

    /// A keyring in memory, or one that fails every call as a locked or unreachable Secret Service does.
    final class FakeKeyring: Keyring, @unchecked Sendable {
        let lock = NSLock()
        var items: [String: (app: String, key: CipherKey)] = [:]
        let failure: KeyError?
        init(failure: KeyError? = nil) { self.failure = failure }

        func store(key: CipherKey, app: String, storePath: String, state: KeyState) throws(KeyError) {
            if let failure { throw failure }
            lock.withLock { items["\(storePath) \(state.rawValue)"] = (app, key) }
        }
        func lookup(storePath: String, state: KeyState) throws(KeyError) -> CipherKey? {
            if let failure { throw failure }
            return lock.withLock { items["\(storePath) \(state.rawValue)"]?.key }
        }
        func remove(storePath: String, state: KeyState) throws(KeyError) -> Bool {
            if let failure { throw failure }
            return lock.withLock { items.removeValue(forKey: "\(storePath) \(state.rawValue)") != nil }
        }
    }

    @Test func theDefaultKeepsANewKeyInTheKeyringItemTheCLILooksUp() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let keyring = FakeKeyring()
        let path = "\(folder)/blog.vein"
        let container = try VeinCore.ModelContainer(V0_0_1.self, migration: FirstBlogMigration.self, at: path, appID: Self.app,
                                                    keyProvider: SecretServiceKeyProvider(keyring: keyring))
        container.context.insert(Post(title: "t", content: "c"))
        try container.context.save()
        let realPath = try FileSystem.realPath(path)
        #expect(keyring.items.keys.sorted() == ["\(realPath) current"])
        #expect(keyring.items["\(realPath) current"]?.app == Self.app)
        // What `vein info` does with no flags: the keyring, by the store's real path.
        let store = try Store.open(path, keys: KeyOptions(environment: [:], keyring: keyring))
        #expect(store.encryption == .encrypted(kind: "raw 256-bit key", source: .keyring))
    }

    /// ARCHITECTURE.md I10: a keyring that fails is an error, never a new key, and nothing is created.
    @Test(arguments: [KeyError.keyringLocked, .keyringUnavailable("Could not connect: No such file or directory")])
    func aFailingKeyringIsAnErrorNeverANewKey(failure: KeyError) throws {
        let folder = try ModelContainerTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let provider = SecretServiceKeyProvider(keyring: FakeKeyring(failure: failure))
        #expect(throws: (any Error).self) {
            try VeinCore.ModelContainer(V0_0_1.self, migration: FirstBlogMigration.self, at: "\(folder)/new.vein",
                                        appID: Self.app, keyProvider: provider)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)

        // A store whose keyring now fails: an error naming the keyring, not a new key or a new store.
        let working = FakeKeyring()
        _ = try VeinCore.ModelContainer(V0_0_1.self, migration: FirstBlogMigration.self, at: "\(folder)/s.vein",
                                        appID: Self.app, keyProvider: SecretServiceKeyProvider(keyring: working))
        let error = try #require(throws: KeyError.self) {
            try VeinCore.ModelContainer(V0_0_1.self, migration: FirstBlogMigration.self, at: "\(folder)/s.vein",
                                        appID: Self.app, keyProvider: provider)
        }
        if case .keyringLocked = failure { #expect(error == .keyringLocked) } else {
            #expect(error.description.contains("the Secret Service is not available"), "\(error)")
        }
    }

    @Test func theDefaultIgnoresVEIN_KEY() throws {
        #expect(SecretServiceKeyProvider(keyring: FakeKeyring()).keyOptions.environment.isEmpty)
    }

    @Test func aKeyFileProviderWritesANewKeyFileTheCLIOpensWith() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = "\(folder)/blog.vein", keyFile = "\(folder)/blog.key"
        _ = try VeinCore.ModelContainer(V0_0_1.self, migration: FirstBlogMigration.self, at: path, appID: Self.app,
                                        keyProvider: .keyFile(keyFile))
        let mode = try FileManager.default.attributesOfItem(atPath: keyFile)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let store = try Store.open(path, keys: KeyOptions(keyFile: keyFile, environment: [:], keyring: nil))
        #expect(store.encryption == .encrypted(kind: "raw 256-bit key", source: .keyFile(keyFile)))
    }

    @Test func anEnvironmentProviderNeedsItsVariable() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = "\(folder)/blog.vein"
        let unset = try #require(throws: KeyError.self) {
            try VeinCore.ModelContainer(V0_0_1.self, migration: FirstBlogMigration.self, at: path, appID: Self.app,
                                        keyProvider: EnvironmentKeyProvider(variable: "BLOG_KEY", environment: [:]))
        }
        #expect(unset.description == "environment variable BLOG_KEY is not set or empty")
        #expect(!FileManager.default.fileExists(atPath: path))

        let key = String(repeating: "ab", count: 32)
        _ = try VeinCore.ModelContainer(V0_0_1.self, migration: FirstBlogMigration.self, at: path, appID: Self.app,
                                        keyProvider: EnvironmentKeyProvider(variable: "BLOG_KEY", environment: ["BLOG_KEY": key]))
        let store = try Store.open(path, keys: KeyOptions(keyEnv: "BLOG_KEY", environment: ["BLOG_KEY": key], keyring: nil))
        #expect(store.encryption.isEncrypted)
    }
}
