import Foundation
import Testing
@testable import Vein

/// Rotating the sync key (docs/sync.md#rotating-the-sync-key): a replica given the new key reads the
/// whole sync, old files included; one not given it reads nothing sealed after and pushes nothing; the
/// relay never holds a key in clear; a rotation interrupted at any step finishes when run again.
@Suite struct SyncKeyRotationTests {
    /// Three replicas with the key in `k1`; the third will be the lost one.
    static func trio() throws -> SyncReplicas { try SyncReplicas(count: 3, keyFile: "k1") }

    @Test func aReplicaGivenTheNewKeyReadsEverythingAndOneNotGivenItNothingAfter() throws {
        let t = try Self.trio()
        try t.insert(t.a, "before")
        try t.session(t.a).push()
        #expect(try t.session(t.a).rotateKey(to: t.dir.path("k2")) == .rotated(epoch: 2))
        try t.insert(t.a, "after")
        try t.session(t.a).push()

        // Not given the new key: what was sealed before is read, nothing after, and nothing is pushed.
        try t.insert(t.c, "from the lost one")
        #expect(throws: SyncError.keyRotated(t.dir.path("relay"), epoch: 2, held: 1)) { try t.session(t.c).push() }
        #expect(throws: SyncError.keyRotated(t.dir.path("relay"), epoch: 2, held: 1)) { try t.session(t.c).pull() }
        #expect(try t.titles(t.c) == ["before", "from the lost one"])
        #expect(SyncError.keyRotated("R", epoch: 2, held: 1).message
                == "the sync key was rotated: R holds files of key epoch 2, and this replica holds the key of epoch 1")

        // Given it: the segments of both epochs, in order.
        #expect(try t.session(t.b).rotateKey(to: t.dir.path("k2")) == .adopted(epoch: 2))
        try t.session(t.b).pull()
        #expect(try t.titles(t.b) == ["after", "before"])
        try t.insert(t.b, "from b")
        try t.session(t.b).push()
        try t.session(t.a).pull()
        #expect(try t.titles(t.a) == ["after", "before", "from b"])

        // A new replica joined with the new key alone reads the first epoch's snapshot and segments.
        _ = try SyncSession.join(relay: t.dir.path("relay"), keyFile: t.dir.path("k2"), to: t.dir.path("d.vein"), protection: { _ in .plaintext })
        let c = try Store.open(t.dir.path("d.vein"), keys: KeyOptions(keyring: nil))
        try SyncSession.adopt(c, relay: try SyncRelay.open(t.dir.path("relay")), keyFile: t.dir.path("k2"), keyring: nil)
        try t.session(c).pull()
        #expect(try t.titles(c) == ["after", "before", "from b"])
        #expect(try SyncState.read(from: c.database)?.epoch == 2)
    }

    @Test func theRelayHoldsNoKeyInClear() throws {
        let t = try Self.trio()
        try t.session(t.a).rotateKey(to: t.dir.path("k2"))
        try t.session(t.a).rotateKey(to: t.dir.path("k3"))
        let relay = try Data(contentsOf: URL(fileURLWithPath: t.dir.path("relay/key-00000002.vseal")))
            + Data(contentsOf: URL(fileURLWithPath: t.dir.path("relay/key-00000003.vseal")))
        for name in ["k1", "k2", "k3"] {
            let key = try SyncKey.read(t.dir.path(name)).key
            let raw = key.withBytes { Data($0) }
            #expect(relay.range(of: raw) == nil, "\(name) in clear on the relay")
            #expect(relay.range(of: Data(Hex.encode(raw).utf8)) == nil, "\(name) in hex on the relay")
        }
        // Epoch 3's key reads back to the first.
        _ = try SyncSession.join(relay: t.dir.path("relay"), keyFile: t.dir.path("k3"), to: t.dir.path("d.vein"), protection: { _ in .plaintext })
    }

    @Test func anInterruptedRotationFinishesWhenRunAgain() throws {
        let t = try Self.trio()
        // Killed after keeping the new key and before publishing it: the next run publishes that key.
        try KeyFile.create(t.dir.path("k2"), key: try BackupKey.random().cipherKey)
        #expect(try t.session(t.a).rotateKey(to: t.dir.path("k2")) == .rotated(epoch: 2))
        #expect(try SyncKeyChain.keyID(ofEpoch: 2, relay: SyncRelay.open(t.dir.path("relay"))) == SyncKey.read(t.dir.path("k2")).key.id)

        // Killed after publishing and before recording: the next run records it.
        let session = try t.session(t.a)
        let k3 = try BackupKey.random()
        try KeyFile.create(t.dir.path("k3"), key: k3.cipherKey)
        try SyncKeyChain.publish(epoch: 3, new: k3, previous: session.keys.current, replica: session.replica, relay: session.relay)
        #expect(try t.session(t.a).rotateKey(to: t.dir.path("k3")) == .adopted(epoch: 3))
        try t.insert(t.a, "at epoch 3")
        try t.session(t.a).push()

        // A second key file for one epoch is refused: another replica rotated first.
        #expect(throws: SyncError.rotatedElsewhere(t.dir.path("relay"), epoch: 3)) {
            try SyncKeyChain.publish(epoch: 3, new: try BackupKey.random(), previous: k3, replica: session.replica, relay: session.relay)
        }
        // A key this sync used already is no new key; a file that is not there is no key to take.
        #expect(throws: SyncError.notTheNewKey(t.dir.path("k2"), reason: "it is a key this sync has used already; name a new file, and a new key is made")) {
            try t.session(t.a).rotateKey(to: t.dir.path("k2"))
        }
        #expect(throws: SyncError.keyRotated(t.dir.path("relay"), epoch: 3, held: 1)) { try t.session(t.b).rotateKey(to: t.dir.path("nothing")) }
        #expect(throws: SyncError.notTheNewKey(t.dir.path("k2"), reason: "it is not the key of the relay's key epoch 3")) {
            try t.session(t.b).rotateKey(to: t.dir.path("k2"))
        }
        #expect(try t.session(t.b).rotateKey(to: t.dir.path("k3")) == .adopted(epoch: 3))
        try t.session(t.b).pull()
        #expect(try t.titles(t.b) == ["at epoch 3"])
    }

    /// A replica whose keyring holds the new key (a rotation by this user on this machine) takes it by
    /// itself at its next push.
    @Test func aKeyInTheKeyringIsTakenByItself() throws {
        let t = try Self.trio()
        let keyring = FakeKeyring()
        let session = try SyncSession(store: t.a, keyring: keyring)
        #expect(try session.rotateKey(to: nil) == .rotated(epoch: 2))
        try t.insert(t.a, "sealed under the keyring's key")
        try SyncSession(store: t.a, keyring: keyring).push()
        let b = try SyncSession(store: t.b, keyring: keyring)
        try b.push()
        try b.pull()
        #expect(try t.titles(t.b) == ["sealed under the keyring's key"])
        let state = try #require(try SyncState.read(from: t.b.database))
        #expect(state.epoch == 2 && state.keyFile == nil && state.keyID != nil)
    }
}
