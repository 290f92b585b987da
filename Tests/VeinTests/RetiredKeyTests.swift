import Foundation
import Testing
@testable import Vein

/// A rotation retires the key it replaces, in the keyring and in key files, and never loses it; opening
/// says where a retired or moved key went; backups are recorded for `vein key forget`.
@Suite struct RetiredKeyTests {
    /// An encrypted store `s.vein` in `dir` whose key is in `keyring`.
    func keyringStore(_ dir: TempDir, _ keyring: FakeKeyring, name: String = "s.vein") throws -> String {
        _ = try StoreCreator.create(at: dir.path(name), manifest: try Fixtures.blogManifest(),
                                    protection: .encrypted(StoreTests.keys(keyring: keyring)))
        return try FileSystem.realPath(dir.path(name))
    }

    @Test func rotatingInTheKeyringRetiresTheOldItemWhichStillOpensOldCopies() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let keyring = FakeKeyring()
        let realPath = try keyringStore(dir, keyring)
        let old = try #require(keyring.item(realPath)).key
        try FileManager.default.copyItem(atPath: dir.path("s.vein"), toPath: dir.path("old-copy.vein"))
        _ = try KeyRotation.rotate(dir.path("s.vein"), keys: StoreTests.keys(keyring: keyring), to: .sameSource)

        let retired = try keyring.retiredKeys(storePath: realPath)
        try #require(retired.count == 1)
        #expect(retired[0].key == old && retired[0].place == .keyring && retired[0].movedTo == .keyring)
        #expect(try keyring.lookup(storePath: realPath, state: .current) != old)
        _ = try Store.open(dir.path("s.vein"), keys: StoreTests.keys(keyring: keyring))
        // The copy made before the rotation opens with the retired key.
        let copy = try Store.open(dir.path("old-copy.vein"), keys: StoreTests.keys(env: ["K": old.text], keyEnv: "K"))
        #expect(copy.meta.app == "com.example.blog")
    }

    @Test func movingOutOfTheKeyringRetiresTheItemAndOpeningSaysWhereTheKeyWent() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let keyring = FakeKeyring()
        let realPath = try keyringStore(dir, keyring)
        let old = try #require(keyring.item(realPath)).key
        _ = try KeyRotation.rotate(dir.path("s.vein"), keys: StoreTests.keys(keyring: keyring), to: .passphrase("a new passphrase"))

        #expect(try keyring.lookup(storePath: realPath, state: .current) == nil)
        let retired = try #require(try keyring.retiredKeys(storePath: realPath).first)
        #expect(retired.key == old && retired.movedTo == .passphrasePrompt)
        #expect(throws: KeyError.keyRetired(store: realPath, retiredAt: retired.retiredAt, movedTo: .passphrasePrompt)) {
            try Store.open(dir.path("s.vein"), keys: StoreTests.keys(keyring: keyring))
        }
        _ = try Store.open(dir.path("s.vein"), keys: StoreTests.keys(env: ["P": "a new passphrase"], keyEnv: "P", keyring: keyring))

        // To a key file: the message names it.
        _ = try KeyRotation.rotate(dir.path("s.vein"), keys: StoreTests.keys(env: ["P": "a new passphrase"], keyEnv: "P", keyring: keyring),
                                   to: .keyring)
        _ = try KeyRotation.rotate(dir.path("s.vein"), keys: StoreTests.keys(keyring: keyring), to: .keyFile(dir.path("new.key"), force: false))
        let newest = try #require(try keyring.retiredKeys(storePath: realPath).last)
        #expect(newest.movedTo == .keyFile(dir.path("new.key")))
        #expect(throws: KeyError.keyRetired(store: realPath, retiredAt: newest.retiredAt, movedTo: .keyFile(dir.path("new.key")))) {
            try Store.open(dir.path("s.vein"), keys: StoreTests.keys(keyring: keyring))
        }
    }

    /// A rotation in the keyring retires the old item before it stores the new one: stopped between the two,
    /// the pending key opens the store (and the next rotation promotes it).
    @Test func withTheOldKeyRetiredAndTheNewOnePendingThePendingKeyOpens() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let keyring = FakeKeyring()
        let realPath = try keyringStore(dir, keyring)
        let old = try #require(keyring.item(realPath)).key
        try #require(try keyring.retireCurrent(storePath: realPath, holding: old, movedTo: .keyring, at: Date()))
        try keyring.store(key: old, app: "com.example.blog", storePath: realPath, state: .pending)
        let store = try Store.open(dir.path("s.vein"), keys: StoreTests.keys(keyring: keyring))
        #expect(store.encryption.keySource == .keyring)
    }

    @Test func aKeyFileRotatedInPlaceKeepsItsOldKeyBesideIt() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let keyFile = dir.path("k")
        _ = try StoreCreator.create(at: dir.path("s.vein"), manifest: try Fixtures.blogManifest(), protection: .encrypted(StoreTests.keys(keyFile: keyFile)))
        let old = try KeyFile.read(keyFile)
        let date = Date(timeIntervalSince1970: 1_769_860_800)  // 2026-01-31T12:00:00Z
        #expect(try KeyFile.retire(keyFile, at: date, keepingName: true) == keyFile + ".retired-20260131T120000Z")
        // Once more with the same key (a rotation finishing one a crash stopped): nothing new.
        #expect(try KeyFile.retire(keyFile, at: date.addingTimeInterval(5), keepingName: true) == nil)
        try KeyFile.replace(keyFile, key: try CipherKey.random())
        #expect(try KeyFile.read(keyFile + ".retired-20260131T120000Z") == old)
        #expect(KeyFile.retiredCopies(of: keyFile).map(\.retiredAt) == ["2026-01-31T12:00:00Z"])

        // Retired again in the same second, with another key: the next name.
        #expect(try KeyFile.retire(keyFile, at: date, keepingName: false) == keyFile + ".retired-20260131T120000Z-1")
        #expect(!FileSystem.fileExists(keyFile))
        #expect(throws: KeyError.keyFileRetired(path: keyFile, retiredAs: keyFile + ".retired-20260131T120000Z-1", retiredAt: "2026-01-31T12:00:00Z")) {
            try KeyFile.read(keyFile)
        }
    }

    @Test func aStoreMovedAwayFromItsKeyringPathIsNamedByTheKeyThatOpensIt() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let keyring = FakeKeyring()
        _ = try keyringStore(dir, keyring, name: "other.vein")
        let realPath = try keyringStore(dir, keyring, name: "a.vein")
        try FileManager.default.moveItem(atPath: dir.path("a.vein"), toPath: dir.path("b.vein"))
        let moved = try FileSystem.realPath(dir.path("b.vein"))
        #expect(throws: KeyError.keyKeptForAnotherPath(store: moved, otherPath: realPath)) {
            try Store.open(dir.path("b.vein"), keys: StoreTests.keys(keyring: keyring))
        }
        // A store no kept key opens is still "no key".
        try FileManager.default.removeItem(atPath: dir.path("b.vein"))
        _ = try StoreCreator.create(at: dir.path("c.vein"), manifest: try Fixtures.blogManifest(),
                                    protection: .encrypted(StoreTests.keys(env: ["K": KeyTests.hex], keyEnv: "K")))
        let lone = try FileSystem.realPath(dir.path("c.vein"))
        #expect(throws: KeyError.noKeySource(store: lone, keyringProblem: "the keyring has no key for this store")) {
            try Store.open(dir.path("c.vein"), keys: StoreTests.keys(keyring: keyring))
        }
    }

    /// A backup of a keyring-keyed store is recorded with its key's fingerprint; forgetting the retired key
    /// names it once its own item is gone.
    @Test func forgettingARetiredKeyNamesTheBackupsOnlyItOpens() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let keyring = FakeKeyring()
        let realPath = try keyringStore(dir, keyring)
        let store = try Store.open(dir.path("s.vein"), keys: StoreTests.keys(keyring: keyring), mode: .readOnly)
        let key = try store.keyForCopies()
        for name in ["b1.vein", "b2.vein"] {
            _ = try StoreCopier.copy(store, to: dir.path(name),
                                     protection: .existingKey(key, source: .keyring, keyring: keyring, app: "com.example.blog", backupOf: realPath))
        }
        let b1 = try FileSystem.realPath(dir.path("b1.vein")), b2 = try FileSystem.realPath(dir.path("b2.vein"))
        #expect(try keyring.backupRecords(of: realPath).map(\.backup).sorted() == [b1, b2])
        #expect(try keyring.backupRecords(of: realPath).allSatisfy { $0.fingerprint == key.fingerprint })
        try store.database.close()
        _ = try KeyRotation.rotate(dir.path("s.vein"), keys: StoreTests.keys(keyring: keyring), to: .sameSource)
        try keyring.remove(storePath: b2, state: .current)

        let entries = try RetiredKeyDeletion.entries(storePath: realPath, keyring: keyring)
        try #require(entries.count == 1)
        #expect(entries[0].onlyKeyOf.map(\.backup) == [b2])
        #expect(entries[0].alsoOpenedByTheirOwnKey.map(\.backup) == [b1])
        #expect(try RetiredKeyDeletion.delete(entries, storePath: realPath, keyring: keyring) == 1)
        #expect(try keyring.retiredKeys(storePath: realPath).isEmpty)
        #expect(try keyring.backupRecords(of: realPath).isEmpty)
        #expect(try keyring.lookup(storePath: realPath, state: .current) != nil, "the current key stays")
    }

    /// A copy from before a rotation put back at the store's path opens only with the retired key: `vein key
    /// forget` never deletes that key, and opening says which key it is instead of "wrong key".
    @Test func aRetiredKeyThatOpensTheStoreAsItIsNowIsNeverForgotten() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let keyring = FakeKeyring()
        let realPath = try keyringStore(dir, keyring)
        let first = try #require(keyring.item(realPath)).key
        try FileManager.default.copyItem(atPath: dir.path("s.vein"), toPath: dir.path("copy.vein"))
        _ = try KeyRotation.rotate(dir.path("s.vein"), keys: StoreTests.keys(keyring: keyring), to: .sameSource)
        // An older retired key that opens nothing here.
        try keyring.store(secret: try CipherKey.random(), attributes: ["app": "com.example.blog", "store": realPath, "state": "retired",
                                                                        "retired": "2020-01-31T12:00:00Z"], label: "Vein key")
        try #require(try keyring.retiredKeys(storePath: realPath).count == 2)
        try FileManager.default.removeItem(atPath: dir.path("s.vein"))
        try FileManager.default.copyItem(atPath: dir.path("copy.vein"), toPath: dir.path("s.vein"))

        let entries = try RetiredKeyDeletion.entries(storePath: realPath, keyring: keyring)
        #expect(try RetiredKeyDeletion.delete(entries, storePath: realPath, keyring: keyring) == 1)
        #expect(try keyring.retiredKeys(storePath: realPath).map(\.key) == [first], "the key of the store as it is now stays")
        #expect(try Store.open(dir.path("s.vein"), keys: StoreTests.keys(env: ["K": first.text], keyEnv: "K")).meta.app == "com.example.blog")
        let retiredAt = try #require(try keyring.retiredKeys(storePath: realPath).first).retiredAt
        #expect(throws: KeyError.retiredKeyOpens(store: realPath, retiredAt: retiredAt)) {
            try Store.open(dir.path("s.vein"), keys: StoreTests.keys(keyring: keyring))
        }
    }

    /// `key forget --purge` stopped part way (here the keyring fails to delete the key) keeps the records of
    /// the backups a kept key alone opens: it deletes the key first, its records after.
    @Test func aForgetThatStopsKeepsTheRecordsOfTheKeyItKept() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let keyring = FakeKeyring()
        let realPath = try keyringStore(dir, keyring)
        let store = try Store.open(dir.path("s.vein"), keys: StoreTests.keys(keyring: keyring), mode: .readOnly)
        _ = try StoreCopier.copy(store, to: dir.path("b.vein"), protection: .existingKey(try store.keyForCopies(), source: .keyring, keyring: keyring,
                                                                                        app: "com.example.blog", backupOf: realPath))
        try store.database.close()
        _ = try KeyRotation.rotate(dir.path("s.vein"), keys: StoreTests.keys(keyring: keyring), to: .sameSource)
        let backup = try FileSystem.realPath(dir.path("b.vein"))
        try keyring.remove(storePath: backup, state: .current)

        let failing = SelectivelyFailingKeyring(keyring, failing: .deletingRetiredKeys)
        let entries = try RetiredKeyDeletion.entries(storePath: realPath, keyring: failing)
        #expect(throws: KeyError.self) { try RetiredKeyDeletion.delete(entries, storePath: realPath, keyring: failing) }
        #expect(try keyring.retiredKeys(storePath: realPath).count == 1)
        #expect(try RetiredKeyDeletion.entries(storePath: realPath, keyring: keyring).first?.onlyKeyOf.map(\.backup) == [backup])
    }

    /// A move out of the keyring whose retirement of the old item fails after the rename says so (the store
    /// opens with the new key); the item stays marked as moved, and the next open retires it and says where
    /// the key went.
    @Test func aKeyringKeyThatCouldNotBeRetiredIsRetiredByTheNextOpen() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let keyring = FakeKeyring()
        let realPath = try keyringStore(dir, keyring)
        let old = try #require(keyring.item(realPath)).key
        let failing = SelectivelyFailingKeyring(keyring, failing: .retiring)
        #expect(throws: KeyRotationError.oldKeyNotRetired(.keyring, newHome: .passphrasePrompt, reason: "the keyring failed: refused")) {
            try KeyRotation.rotate(dir.path("s.vein"), keys: StoreTests.keys(keyring: failing), to: .passphrase("a new passphrase"))
        }
        _ = try Store.open(dir.path("s.vein"), keys: StoreTests.keys(env: ["P": "a new passphrase"], keyEnv: "P", keyring: keyring))
        #expect(try keyring.lookup(storePath: realPath, state: .current) == old, "not retired yet")

        var caught: Error?
        do { _ = try Store.open(dir.path("s.vein"), keys: StoreTests.keys(keyring: keyring)) } catch { caught = error }
        let retired = try #require(try keyring.retiredKeys(storePath: realPath).first)
        #expect(retired.key == old && retired.movedTo == .passphrasePrompt)
        #expect(caught as? KeyError == .keyRetired(store: realPath, retiredAt: retired.retiredAt, movedTo: .passphrasePrompt))
        #expect(try keyring.lookup(storePath: realPath, state: .current) == nil)
    }

    /// The mark a move out of the keyring puts on the item before the rename (left here as by a process
    /// killed before the rename) is taken off by the next rotation: a key that opens the store is never
    /// retired for a move that did not happen.
    @Test func aMoveThatNeverHappenedLeavesNoMark() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let keyring = FakeKeyring()
        let realPath = try keyringStore(dir, keyring)
        let old = try #require(keyring.item(realPath)).key
        try keyring.markMoving(storePath: realPath, holding: old, to: .passphrasePrompt)
        #expect(try keyring.items(matching: ["store": realPath, "state": "current"]).first?.attributes["moved-to"] == "passphrase")
        // The next rotation takes it off first, even one that then fails (a key file in the way).
        try dir.write("taken", "keep me\n")
        #expect(throws: KeyError.keyFileExists(path: dir.path("taken"))) {
            try KeyRotation.rotate(dir.path("s.vein"), keys: StoreTests.keys(keyring: keyring), to: .keyFile(dir.path("taken"), force: false))
        }
        #expect(try keyring.items(matching: ["store": realPath, "state": "current"]).map { $0.attributes["moved-to"] } == [nil])
        #expect(try keyring.lookup(storePath: realPath, state: .current) == old)
        _ = try Store.open(dir.path("s.vein"), keys: StoreTests.keys(keyring: keyring))
    }

    @Test func aFingerprintTellsKeysApartAndIsStable() throws {
        let key = try CipherKey(text: KeyTests.hex)
        #expect(key.fingerprint == (try CipherKey(text: KeyTests.hex)).fingerprint)
        #expect(key.fingerprint.count == 16)
        #expect(key.fingerprint != (try CipherKey.random()).fingerprint)
        #expect(!KeyTests.hex.contains(key.fingerprint))
    }
}

/// A keyring that passes everything to another but fails one kind of change ("refused"): retiring a current
/// key, or deleting retired keys.
final class SelectivelyFailingKeyring: Keyring {
    enum Failing: Sendable { case retiring, deletingRetiredKeys }
    let inner: FakeKeyring
    let failing: Failing

    init(_ inner: FakeKeyring, failing: Failing) {
        self.inner = inner
        self.failing = failing
    }

    func store(key: CipherKey, app: String, storePath: String, state: KeyState) throws(KeyError) {
        try inner.store(key: key, app: app, storePath: storePath, state: state)
    }
    func lookup(storePath: String, state: KeyState) throws(KeyError) -> CipherKey? { try inner.lookup(storePath: storePath, state: state) }
    func remove(storePath: String, state: KeyState) throws(KeyError) -> Bool { try inner.remove(storePath: storePath, state: state) }
    func items(matching attributes: [String: String]) throws(KeyError) -> [KeyringItem] { try inner.items(matching: attributes) }
    func store(secret: CipherKey, attributes: [String: String], label: String) throws(KeyError) {
        try inner.store(secret: secret, attributes: attributes, label: label)
    }
    func relabel(matching: [String: String], attributes: [String: String], label: String) throws(KeyError) -> Int {
        if failing == .retiring, attributes["state"] == KeyState.retired.rawValue { throw .keyringFailed("refused") }
        return try inner.relabel(matching: matching, attributes: attributes, label: label)
    }
    func delete(matching attributes: [String: String]) throws(KeyError) -> Int {
        if failing == .deletingRetiredKeys, attributes["state"] == KeyState.retired.rawValue { throw .keyringFailed("refused") }
        return try inner.delete(matching: attributes)
    }
}
