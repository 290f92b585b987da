import Foundation
import Synchronization
import Testing
@testable import Vein

/// Creating and opening stores (docs/store-format.md, docs/keys.md).
@Suite struct StoreTests {
    static let hex = KeyTests.hex
    static let now = Date(timeIntervalSince1970: 1_769_860_800.123456)  // 2026-01-31T12:00:00.123456Z

    /// Key options that never reach the real keyring or the process environment.
    static func keys(keyFile: String? = nil, env: [String: String] = [:], keyEnv: String? = nil,
                     keyring: (any Keyring)? = nil) -> KeyOptions {
        KeyOptions(keyFile: keyFile, keyEnv: keyEnv, environment: env, keyring: keyring)
    }

    static let rawKeyOptions = keys(env: ["TEST_KEY": hex], keyEnv: "TEST_KEY")

    static let plaintextHeader = Array("SQLite format 3\0".utf8)

    // MARK: Plaintext

    @Test func createPlaintextAndReadItBack() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let path = dir.path("blog.vein")
        let blog = try Fixtures.blogManifest()
        let result = try StoreCreator.create(at: path, manifest: blog, protection: .plaintext, now: Self.now)
        #expect(result.path == path)
        #expect(result.realPath == (try FileSystem.realPath(path)))
        #expect(result.encryption == .plaintext)
        #expect(!result.generatedKey)
        // One self-contained file: no temporary file, no WAL or shared-memory file left behind.
        #expect(try dir.contents() == ["blog.vein"])
        #expect(try dir.bytes("blog.vein").starts(with: Self.plaintextHeader))

        let store = try Store.open(path, keys: Self.keys())
        #expect(store.path == path)
        #expect(store.realPath == result.realPath)
        #expect(store.encryption == .plaintext)
        #expect(!store.encryption.isEncrypted)
        #expect(store.encryption.keySource == .none)
        #expect(store.manifest == blog)
        #expect(store.meta == StoreMeta(formatVersion: 3, app: "com.example.blog", schemaVersion: "0.0.1",
                                        manifest: blog.canonicalText, manifestSHA256: blog.sha256,
                                        createdAt: "2026-01-31T12:00:00.123456Z", toolVersion: VeinVersion.current))
        #expect(try store.rowCounts().map { "\($0.model)=\($0.rows)" } == ["Post=0", "Attachment=0"])
    }

    @Test func metaAndHistoryTables() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let path = dir.path("s.vein")
        let blog = try Fixtures.blogManifest()
        _ = try StoreCreator.create(at: path, manifest: blog, protection: .plaintext, now: Self.now)
        let db = try Store.open(path, keys: Self.keys()).database

        #expect(try db.rows(#"SELECT "key", "value" FROM "_vein_meta" ORDER BY "key""#) == [
            ["app", "com.example.blog"],
            ["createdAt", "2026-01-31T12:00:00.123456Z"],
            ["formatVersion", "3"],
            ["manifest", .text(blog.canonicalText)],
            ["manifestSHA256", .text(blog.sha256)],
            ["schemaVersion", "0.0.1"],
            ["toolVersion", .text(VeinVersion.current)],
        ])
        #expect(try db.rows(#"SELECT * FROM "_vein_migrations""#) == [[
            .integer(1), .null, "0.0.1", .text(blog.sha256), "2026-01-31T12:00:00.123456Z", .real(0),
            .integer(0), .integer(0), .integer(0), .text(VeinVersion.current),
        ]])
        #expect(try db.rows("PRAGMA table_info(\"_vein_migrations\")").map { $0[1].string ?? "" } == [
            "seq", "fromVersion", "toVersion", "checksum", "appliedAt", "durationSeconds", "rowsRead", "rowsWritten",
            "rowsDeleted", "toolVersion",
        ])
        // Exactly the schema's tables, plus Vein's two.
        #expect(try db.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").map { $0[0] }
                == ["Attachment", "Post", "_vein_meta", "_vein_migrations"])
        #expect(try db.scalar("PRAGMA journal_mode") == .text("wal"))
    }

    @Test func indexesExist() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let path = dir.path("s.vein")
        _ = try StoreCreator.create(at: path, manifest: try Fixtures.blogManifest(), protection: .plaintext)
        let db = try Store.open(path, keys: Self.keys()).database
        let indexes = try db.rows("SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name")
        #expect(indexes == [
            ["Attachment.post._vein_pos_attachments", "Attachment",
             #"CREATE INDEX "Attachment.post._vein_pos_attachments" ON "Attachment" ("post", "_vein_pos_attachments")"#],
            ["Post.publishedAt", "Post", #"CREATE INDEX "Post.publishedAt" ON "Post" ("publishedAt")"#],
        ])
        #expect(try db.rows(#"PRAGMA index_info("Post.publishedAt")"#).map { $0[2] } == ["publishedAt"])
    }

    @Test func storeTablesMatchTheDDL() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let path = dir.path("s.vein")
        let blog = try Fixtures.blogManifest()
        _ = try StoreCreator.create(at: path, manifest: blog, protection: .plaintext)
        let db = try Store.open(path, keys: Self.keys()).database
        for model in blog.models {
            #expect(try db.scalar("SELECT sql FROM sqlite_master WHERE name = ?", [.text(model.name)])
                    == .text(SchemaDDL.createTable(model, tableName: model.name, in: blog)))
        }
    }

    @Test func readOnlyOpenRefusesWrites() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let path = dir.path("s.vein")
        _ = try StoreCreator.create(at: path, manifest: try Fixtures.blogManifest(), protection: .plaintext)
        let store = try Store.open(path, keys: Self.keys(), mode: .readOnly)
        #expect(throws: DatabaseError.self) {
            try store.database.execute(#"INSERT INTO "Post" ("_id", "title", "content") VALUES ('x', 't', 'c')"#)
        }
    }

    // MARK: Encrypted

    @Test func createWithARawKeyFromTheEnvironment() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let path = dir.path("enc.vein")
        let blog = try Fixtures.blogManifest()
        let result = try StoreCreator.create(at: path, manifest: blog, protection: .encrypted(Self.rawKeyOptions), now: Self.now)
        #expect(result.encryption == .encrypted(kind: "raw 256-bit key", source: .environment("TEST_KEY")))
        #expect(!result.generatedKey)
        #expect(try dir.contents() == ["enc.vein"])
        let bytes = try dir.bytes("enc.vein")
        #expect(!bytes.starts(with: Self.plaintextHeader))
        #expect(bytes.range(of: Data("com.example.blog".utf8)) == nil)
        #expect(bytes.count % 4096 == 0)

        let store = try Store.open(path, keys: Self.rawKeyOptions)
        #expect(store.encryption == .encrypted(kind: "raw 256-bit key", source: .environment("TEST_KEY")))
        #expect(store.encryption.isEncrypted)
        #expect(store.manifest == blog)
        #expect(store.meta.createdAt == "2026-01-31T12:00:00.123456Z")
        #expect(try store.database.scalar("PRAGMA cipher_page_size").map { $0 == .integer(4096) || $0 == .text("4096") } == true)

        // VEIN_KEY opens it too, and says so.
        let viaVEIN_KEY = try Store.open(path, keys: Self.keys(env: ["VEIN_KEY": Self.hex]))
        #expect(viaVEIN_KEY.encryption.keySource == .environment("VEIN_KEY"))

        // The raw database opens with the key as SQLCipher sees it, and not without.
        #expect(throws: DatabaseError.self) { try Database(path: path, key: nil) }
        #expect(try Database(path: path, key: try CipherKey(text: Self.hex)).scalar("SELECT count(*) FROM \"_vein_meta\"") == .integer(7))
    }

    @Test func createWithAPassphrase() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let path = dir.path("p.vein")
        final class Recorder: Sendable { let asked = Mutex<[Bool]>([]) }
        let recorder = Recorder()
        let options = KeyOptions(passphrase: true, readPassphrase: { confirm in
            recorder.asked.withLock { $0.append(confirm) }
            return "correct horse battery staple"
        }, environment: [:], keyring: nil)
        let result = try StoreCreator.create(at: path, manifest: try Fixtures.blogManifest(), protection: .encrypted(options))
        #expect(result.encryption == .encrypted(kind: "passphrase (PBKDF2)", source: .passphrasePrompt))
        let store = try Store.open(path, keys: options)
        #expect(store.encryption == .encrypted(kind: "passphrase (PBKDF2)", source: .passphrasePrompt))
        // Creating asks for confirmation, opening does not.
        #expect(recorder.asked.withLock { $0 } == [true, false])
        let info = try StoreInfo(store)
        #expect(info.cipher?.keyKind == "passphrase (PBKDF2)")
        #expect((info.cipher?.kdfIterations ?? 0) > 0)
    }

    @Test func wrongKeyIsStoreErrorWrongKeyAndWritesNothing() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let path = dir.path("enc.vein")
        _ = try StoreCreator.create(at: path, manifest: try Fixtures.blogManifest(), protection: .encrypted(Self.rawKeyOptions))
        let before = try dir.bytes("enc.vein")
        let wrongRaw = Self.keys(env: ["VEIN_KEY": String(repeating: "ab", count: 32)])
        let vein = KeySource.environment("VEIN_KEY")
        #expect(throws: StoreError.wrongKey(path, source: vein)) { try Store.open(path, keys: wrongRaw) }
        #expect(throws: StoreError.wrongKey(path, source: vein)) { try Store.open(path, keys: Self.keys(env: ["VEIN_KEY": "a passphrase"])) }
        #expect(throws: StoreError.wrongKey(path, source: vein)) { try Store.open(path, keys: wrongRaw, mode: .readOnly) }
        #expect(try dir.bytes("enc.vein") == before)
        #expect(try dir.contents() == ["enc.vein"])
    }

    @Test func noKeySourceWithoutAKeyring() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let path = dir.path("enc.vein")
        let realPath = try FileSystem.realPath(path)
        // Creating: nothing to take a key from and nowhere to keep a new one.
        #expect(throws: KeyError.noKeySource(store: realPath, keyringProblem: "no keyring configured")) {
            try StoreCreator.create(at: path, manifest: try Fixtures.blogManifest(), protection: .encrypted(Self.keys()))
        }
        #expect(try dir.contents().isEmpty)
        // Opening an encrypted store with no source.
        _ = try StoreCreator.create(at: path, manifest: try Fixtures.blogManifest(), protection: .encrypted(Self.rawKeyOptions))
        #expect(throws: KeyError.noKeySource(store: realPath, keyringProblem: "no keyring configured")) {
            try Store.open(path, keys: Self.keys())
        }
    }

    // MARK: Key files

    @Test func missingKeyFileIsCreatedWithMode0600() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let path = dir.path("s.vein"), keyPath = dir.path("s.key")
        let options = Self.keys(keyFile: keyPath)
        let result = try StoreCreator.create(at: path, manifest: try Fixtures.blogManifest(), protection: .encrypted(options))
        #expect(result.generatedKey)
        #expect(result.encryption == .encrypted(kind: "raw 256-bit key", source: .keyFile(keyPath)))
        let attributes = try FileManager.default.attributesOfItem(atPath: keyPath)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let text = try String(contentsOfFile: keyPath, encoding: .utf8)
        #expect(text.count == 65 && text.hasSuffix("\n"))
        #expect(text.dropLast().allSatisfy { $0.isHexDigit })
        #expect(try dir.contents() == ["s.key", "s.vein"])

        let store = try Store.open(path, keys: options)
        #expect(store.encryption == .encrypted(kind: "raw 256-bit key", source: .keyFile(keyPath)))
        // The key file's key is the one SQLCipher uses.
        #expect(try Database(path: path, key: try CipherKey(text: text)).scalar("SELECT count(*) FROM \"Post\"") == .integer(0))
    }

    @Test func existingKeyFileIsUsedNotReplaced() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        try dir.write("s.key", "my passphrase\n", mode: 0o600)
        let options = Self.keys(keyFile: dir.path("s.key"))
        let result = try StoreCreator.create(at: dir.path("s.vein"), manifest: try Fixtures.blogManifest(), protection: .encrypted(options))
        #expect(!result.generatedKey)
        #expect(result.encryption == .encrypted(kind: "passphrase (PBKDF2)", source: .keyFile(dir.path("s.key"))))
        #expect(try String(contentsOfFile: dir.path("s.key"), encoding: .utf8) == "my passphrase\n")
        _ = try Store.open(dir.path("s.vein"), keys: Self.keys(env: ["VEIN_KEY": "my passphrase"]))
    }

    @Test func keyFileReadableByOthersIsRefused() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        try dir.write("s.key", Self.hex + "\n", mode: 0o644)
        let options = Self.keys(keyFile: dir.path("s.key"))
        #expect(throws: KeyError.keyFileTooOpen(path: dir.path("s.key"), mode: 0o644)) {
            try StoreCreator.create(at: dir.path("s.vein"), manifest: try Fixtures.blogManifest(), protection: .encrypted(options))
        }
        #expect(try dir.contents() == ["s.key"])
        // And when opening.
        _ = try StoreCreator.create(at: dir.path("s.vein"), manifest: try Fixtures.blogManifest(), protection: .encrypted(Self.rawKeyOptions))
        #expect(throws: KeyError.keyFileTooOpen(path: dir.path("s.key"), mode: 0o644)) {
            try Store.open(dir.path("s.vein"), keys: options)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: dir.path("s.key"))
        _ = try Store.open(dir.path("s.vein"), keys: options)
    }

    // MARK: Keyring

    @Test func newKeyGoesToTheKeyring() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let path = dir.path("k.vein")
        let realPath = try FileSystem.realPath(path)
        let keyring = FakeKeyring()
        let result = try StoreCreator.create(at: path, manifest: try Fixtures.blogManifest(), protection: .encrypted(Self.keys(keyring: keyring)))
        #expect(result.generatedKey)
        #expect(result.encryption == .encrypted(kind: "raw 256-bit key", source: .keyring))
        let item = try #require(keyring.item(realPath))
        #expect(item.app == "com.example.blog")
        #expect(keyring.count == 1)
        let store = try Store.open(path, keys: Self.keys(keyring: keyring))
        #expect(store.encryption.keySource == .keyring)
        // An explicit source wins over the keyring, even a wrong one.
        #expect(throws: StoreError.wrongKey(path, source: .environment("VEIN_KEY"))) {
            try Store.open(path, keys: Self.keys(env: ["VEIN_KEY": "nope"], keyring: keyring))
        }
    }

    @Test func keyringThatAlreadyHoldsAKeyForThePathIsNotOverwritten() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let path = dir.path("k.vein")
        let realPath = try FileSystem.realPath(path)
        let keyring = FakeKeyring()
        try keyring.store(key: .passphrase("old"), app: "old.app", storePath: realPath, state: .current)
        #expect(throws: StoreError.cannotCreate(realPath, reason: "the keyring already holds a key for this path; remove it first (secret-tool clear store '\(realPath)')")) {
            try StoreCreator.create(at: path, manifest: try Fixtures.blogManifest(), protection: .encrypted(Self.keys(keyring: keyring)))
        }
        #expect(keyring.item(realPath) == FakeKeyring.Item(app: "old.app", key: .passphrase("old")))
        #expect(try dir.contents().isEmpty)
    }

    @Test func unreachableOrFailingKeyring() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let path = dir.path("k.vein")
        let realPath = try FileSystem.realPath(path)
        #expect(throws: KeyError.noKeySource(store: realPath, keyringProblem: "the Secret Service is not available: Cannot autolaunch D-Bus without X11 $DISPLAY")) {
            try StoreCreator.create(at: path, manifest: try Fixtures.blogManifest(), protection: .encrypted(Self.keys(keyring: FakeKeyring(.unavailable))))
        }
        #expect(throws: KeyError.keyringFailed("the collection is locked")) {
            try StoreCreator.create(at: path, manifest: try Fixtures.blogManifest(), protection: .encrypted(Self.keys(keyring: FakeKeyring(.failing))))
        }
        #expect(try dir.contents().isEmpty)
    }

    // MARK: Failures leave nothing behind

    @Test func creatingOverAnExistingPathFailsAndLeavesItUntouched() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        try dir.write("s.vein", "precious data", mode: 0o644)
        let path = dir.path("s.vein")
        for protection in [StoreCreator.Protection.plaintext, .encrypted(Self.rawKeyOptions), .encrypted(Self.keys(keyFile: dir.path("new.key")))] {
            #expect(throws: StoreError.alreadyExists(path)) {
                try StoreCreator.create(at: path, manifest: try Fixtures.blogManifest(), protection: protection)
            }
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "precious data")
        #expect(try dir.contents() == ["s.vein"])  // no key file made, no temporary file left
        // A dangling symlink counts as existing too.
        try FileManager.default.createSymbolicLink(atPath: dir.path("link.vein"), withDestinationPath: dir.path("nowhere"))
        #expect(throws: StoreError.alreadyExists(dir.path("link.vein"))) {
            try StoreCreator.create(at: dir.path("link.vein"), manifest: try Fixtures.blogManifest(), protection: .plaintext)
        }
        #expect(!FileManager.default.fileExists(atPath: dir.path("nowhere")))
    }

    @Test func missingDirectoryFailsAndCreatesNothing() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let path = dir.path("no/such/dir/s.vein")
        #expect(throws: StoreError.cannotCreate(path, reason: "its directory does not exist")) {
            try StoreCreator.create(at: path, manifest: try Fixtures.blogManifest(), protection: .plaintext)
        }
        #expect(throws: StoreError.cannotCreate(path, reason: "its directory does not exist")) {
            try StoreCreator.create(at: path, manifest: try Fixtures.blogManifest(), protection: .encrypted(Self.keys(keyFile: dir.path("k.key"))))
        }
        #expect(try dir.contents().isEmpty)
    }

    /// A manifest that passes no validation (two tables of one name), so the build fails midway.
    static let brokenManifest = SchemaManifest(app: "broken.app", version: SchemaVersion(1, 0, 0), models: [
        ModelSchema(name: "A", fields: [FieldSchema(name: "x", type: .int)]),
        ModelSchema(name: "A", fields: [FieldSchema(name: "y", type: .int)]),
    ])

    @Test func failedBuildRemovesTheTemporaryFileAndTheNewKey() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let path = dir.path("s.vein")
        let realPath = try FileSystem.realPath(path)
        let error = try #require(throws: DatabaseError.self) {
            try StoreCreator.create(at: path, manifest: Self.brokenManifest, protection: .plaintext)
        }
        #expect(error.message == "table \"A\" already exists")
        #expect(try dir.contents().isEmpty)

        // The key file made for it is removed again.
        #expect(throws: DatabaseError.self) {
            try StoreCreator.create(at: path, manifest: Self.brokenManifest, protection: .encrypted(Self.keys(keyFile: dir.path("k.key"))))
        }
        #expect(try dir.contents().isEmpty)

        // So is the keyring item.
        let keyring = FakeKeyring()
        #expect(throws: DatabaseError.self) {
            try StoreCreator.create(at: path, manifest: Self.brokenManifest, protection: .encrypted(Self.keys(keyring: keyring)))
        }
        #expect(keyring.item(realPath) == nil)
        #expect(try dir.contents().isEmpty)

        // An existing key file is not the creator's to remove.
        try dir.write("mine.key", Self.hex)
        #expect(throws: DatabaseError.self) {
            try StoreCreator.create(at: path, manifest: Self.brokenManifest, protection: .encrypted(Self.keys(keyFile: dir.path("mine.key"))))
        }
        #expect(try dir.contents() == ["mine.key"])
    }

    // MARK: Opening things that are not stores

    @Test func openingWhatIsNotAStore() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        #expect(throws: StoreError.notFound(dir.path("missing.vein"))) { try Store.open(dir.path("missing.vein"), keys: Self.keys()) }

        // A plain SQLite database without _vein_meta.
        let plain = dir.path("plain.db")
        do {
            let db = try Database(path: plain, mode: .create, key: nil)
            try db.execute("CREATE TABLE t (a)")
            try db.close()
        }
        #expect(throws: StoreError.notAVeinStore(plain, reason: "it has no _vein_meta table")) { try Store.open(plain, keys: Self.keys()) }

        // A file with SQLite's header and garbage after it fails (today with SQLite's own
        // "unsupported file format" rather than a StoreError) and is left as it was.
        try Data(Self.plaintextHeader + [UInt8](repeating: 0xEE, count: 4080)).write(to: URL(fileURLWithPath: dir.path("fake.db")))
        let fake = try dir.bytes("fake.db")
        #expect(throws: (any Error).self) { try Store.open(dir.path("fake.db"), keys: Self.keys()) }
        #expect(try dir.bytes("fake.db") == fake)

        // Random bytes look like an encrypted store: a key is needed, and no key opens them.
        try Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: URL(fileURLWithPath: dir.path("noise.db")))
        #expect(throws: KeyError.self) { try Store.open(dir.path("noise.db"), keys: Self.keys()) }
        #expect(throws: StoreError.wrongKey(dir.path("noise.db"), source: .environment("TEST_KEY"))) {
            try Store.open(dir.path("noise.db"), keys: Self.rawKeyOptions)
        }
    }

    @Test func damagedMeta() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let path = dir.path("s.vein")
        _ = try StoreCreator.create(at: path, manifest: try Fixtures.blogManifest(), protection: .plaintext)
        let db = try Database(path: path, key: nil)

        try db.execute(#"UPDATE "_vein_meta" SET "value" = '4' WHERE "key" = 'formatVersion'"#)
        #expect(throws: StoreError.unsupportedFormat(path, found: "4")) { try Store.open(path, keys: Self.keys()) }
        // Format 1 (to-many as JSON arrays) was never released: refused by name, not read as format 2.
        try db.execute(#"UPDATE "_vein_meta" SET "value" = '1' WHERE "key" = 'formatVersion'"#)
        #expect(throws: StoreError.obsoleteFormat(path, found: "1")) { try Store.open(path, keys: Self.keys()) }
        try db.execute(#"UPDATE "_vein_meta" SET "value" = 'one' WHERE "key" = 'formatVersion'"#)
        #expect(throws: StoreError.notAVeinStore(path, reason: "bad formatVersion one")) { try Store.open(path, keys: Self.keys()) }
        // Format 2 is read, never written: a read-write open says to upgrade it.
        try db.execute(#"UPDATE "_vein_meta" SET "value" = '2' WHERE "key" = 'formatVersion'"#)
        #expect(throws: StoreError.needsUpgrade(path, found: 2)) { try Store.open(path, keys: Self.keys()) }
        try db.execute(#"UPDATE "_vein_meta" SET "value" = '3' WHERE "key" = 'formatVersion'"#)
        _ = try Store.open(path, keys: Self.keys())

        try db.execute(#"DELETE FROM "_vein_meta" WHERE "key" = 'toolVersion'"#)
        #expect(throws: StoreError.notAVeinStore(path, reason: "_vein_meta has no toolVersion")) { try Store.open(path, keys: Self.keys()) }
        try db.execute(#"INSERT INTO "_vein_meta" VALUES ('toolVersion', '0.1.0')"#)

        try db.execute(#"UPDATE "_vein_meta" SET "value" = '{"vein":1}' WHERE "key" = 'manifest'"#)
        let error = try #require(throws: StoreError.self) { try Store.open(path, keys: Self.keys()) }
        guard case .notAVeinStore(let p, let reason) = error else { Issue.record("\(error)"); return }
        #expect(p == path)
        #expect(reason == "its stored manifest is invalid: \(path) (_vein_meta.manifest): missing key \"app\" (an application id such as \"com.example.blog\")\n\(path) (_vein_meta.manifest): missing key \"version\" (a semantic version such as \"0.0.1\")\n\(path) (_vein_meta.manifest): missing key \"models\" (an object of models)")
    }

    // MARK: Info

    @Test func infoOfPlaintextAndEncryptedStores() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        _ = try StoreCreator.create(at: dir.path("p.vein"), manifest: try Fixtures.blogManifest(), protection: .plaintext)
        let plain = try StoreInfo(try Store.open(dir.path("p.vein"), keys: Self.keys()))
        #expect(plain.cipher == nil)
        #expect(plain.keySource == .none)
        #expect(plain.journalMode == "wal")
        #expect(plain.meta.app == "com.example.blog")
        #expect(plain.modelRows.map(\.model) == ["Post", "Attachment"])
        #expect(plain.sizeBytes > 0)

        _ = try StoreCreator.create(at: dir.path("e.vein"), manifest: try Fixtures.blogManifest(), protection: .encrypted(Self.rawKeyOptions))
        let encrypted = try StoreInfo(try Store.open(dir.path("e.vein"), keys: Self.rawKeyOptions))
        let cipher = try #require(encrypted.cipher)
        #expect(cipher.pageSize == 4096)
        #expect(cipher.keyKind == "raw 256-bit key")
        #expect(cipher.kdfIterations == nil)
        #expect(cipher.version.hasPrefix("3.") || cipher.version.hasPrefix("4."))
        #expect(encrypted.keySource == .environment("TEST_KEY"))
        #expect(encrypted.journalMode == "wal")
    }
}
