import Foundation
import Testing
@testable import Vein

/// Continuous backups' promise (docs/backup.md#restoring): a restore at a commit gives the store exactly as
/// it was after that commit. Checked as a property over random writes of every kind, with backup passes at
/// random moments, writes made outside Vein, and a restore at every commit the backup holds.
@Suite struct BackupRestoreTests {
    @Test(arguments: [1, 2, 3] as [UInt64])
    func aRestoreAtEveryCommitGivesTheStoreAsItWasThen(seed: UInt64) throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let manifest = try ManifestParser.parse(ChangeLogReplayTests.manifestText, file: "history.json5")
        let keys = KeyOptions(keyFile: dir.path("k"), keyring: nil)
        _ = try StoreCreator.create(at: dir.path("s.vein"), manifest: manifest, protection: .encrypted(keys), keepsChangeLog: true)
        let store = try Store.open(dir.path("s.vein"), keys: keys)
        let folder = try ContinuousBackup.folder(for: store, at: dir.path("backup"))
        let key = try BackupKeyOptions(keyring: nil).keyForWriting(store: store, folder: folder)
        let backup = ContinuousBackup(store: store, folder: folder, key: key)
        let context = ObjectContext(store: store)
        var writes = RandomWrites(context: context, runner: QueryRunner(context: context), store: store, dir: dir, seed: seed)
        var rng = SplitMix64(seed: seed &+ 100)

        func lastToken() throws -> Int64 { try store.database.scalar(#"SELECT max("token") FROM "_vein_transactions""#)?.int64 ?? 0 }
        var states: [Int64: String] = [0: try RandomWrites.export(store, in: dir)]
        var kinds: [String] = []
        #expect(try backup.run().first == .snapshot(generation: 1, reason: "the first snapshot", bytes: Int(FileSystem.fileSize(folder.snapshotPath(1)))))
        for step in 0..<40 {
            if step == 20 {
                // Another program's write: the next pass records it and starts a new generation after it.
                let other = try Database(path: dir.path("s.vein"), key: try KeyFile.read(dir.path("k")))
                try other.execute(#"UPDATE "Post" SET "views" = "views" + 100"#)
                try other.close()
                let steps = try backup.run()
                #expect(steps.contains { if case .outsideWrites = $0 { true } else { false } }, "\(steps)")
                #expect(steps.contains { if case .snapshot(_, let reason, _) = $0 { reason.hasPrefix("writes made outside Vein") } else { false } }, "\(steps)")
                states[try lastToken()] = try RandomWrites.export(store, in: dir)
            }
            guard try writes.step(step) != nil else { continue }
            states[try lastToken()] = try RandomWrites.export(store, in: dir)
            if Int.random(in: 0..<3, using: &rng) == 0 {
                kinds += try backup.run().map { if case .segment = $0 { "segment" } else { "other" } }
            }
        }
        kinds += try backup.run().map { if case .segment = $0 { "segment" } else { "other" } }
        #expect(kinds.contains("segment"))
        #expect(try backup.run().isEmpty, "a pass with nothing new sends nothing")

        let verified = try BackupRestore.verify(folder, keys: { _, _ in key })
        #expect(verified.count == 2, "the outside write started a second generation")
        try BackupRestore.compare(folder, with: store)
        for (token, expected) in states.sorted(by: { $0.key < $1.key }) {
            let path = dir.path("r-\(token).vein")
            let result = try BackupRestore.restore(folder, keys: { _, _ in key }, to: path, protection: { _ in .plaintext }, at: .token(token))
            let restored = try Store.open(path, keys: KeyOptions(keyring: nil))
            let actual = try RandomWrites.export(restored, in: dir)
            try #require(actual == expected, "seed \(seed): the restore at token \(token) (generation \(result.generation)) differs")
            try #require(StoreVerifier.verify(restored).isClean)
            #expect(result.lastToken == token)
            try restored.close()
            unlink(path)
        }
    }

    @Test func aSealedHeaderReadsBackAsWritten() throws {
        let header = SealedHeader(kind: .segment, generation: 7, sequence: 1 << 40, storeID: ULID.make().description, replicaID: ULID.make().description,
                                  keyID: [1, 2, 3, 4, 5, 6, 7, 8], previousDigest: [UInt8](repeating: 9, count: 32), lastToken: 123_456_789,
                                  lastClock: Int64.max - 5, nonce: [UInt8](repeating: 3, count: 12), payloadLength: 42)
        #expect(header.encoded.count == SealedHeader.length)
        #expect(try SealedHeader(decoding: header.encoded) == header)
        var wrongVersion = header.encoded
        wrongVersion[8] = 2
        #expect(throws: SealedHeader.Problem.version(2)) { try SealedHeader(decoding: wrongVersion) }
    }

    @Test func aWrappedKeyOpensWithItsPassphraseOnly() throws {
        let key = try BackupKey.random()
        let text = try WrappedBackupKey.wrap(key, backupID: "01JBACKUP0000000000000000", passphrase: "correct horse battery")
        #expect(WrappedBackupKey.isWrapped(text))
        let opened = try WrappedBackupKey.unwrap(text, path: "w.key", passphrase: "correct horse battery")
        #expect(opened.key.id == key.id && opened.backupID == "01JBACKUP0000000000000000")
        #expect(throws: BackupError.wrongPassphrase("w.key")) { try WrappedBackupKey.unwrap(text, path: "w.key", passphrase: "wrong horse battery") }
        // Its other lines are authenticated too: a changed backup id is refused, not believed.
        let altered = text.replacingOccurrences(of: "01JBACKUP0000000000000000", with: "01JBACKUP0000000000000001")
        #expect(throws: BackupError.wrongPassphrase("w.key")) { try WrappedBackupKey.unwrap(altered, path: "w.key", passphrase: "correct horse battery") }
    }

    @Test func aDerivedKeyDependsOnTheStoreKeyAndTheStore() throws {
        let storeKey = try CipherKey.random()
        let a = try BackupKey.derived(from: storeKey, storeID: "A"), b = try BackupKey.derived(from: storeKey, storeID: "B")
        #expect(a.id == (try BackupKey.derived(from: storeKey, storeID: "A")).id)
        #expect(a.id != b.id)
        #expect(a.id != (try BackupKey.derived(from: try CipherKey.random(), storeID: "A")).id)
    }
}
