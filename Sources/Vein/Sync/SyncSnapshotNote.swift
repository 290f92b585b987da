import Foundation

/// What a numbered snapshot of a sync's relay holds besides the store (docs/sync.md#migrations,
/// docs/sync.md#pruning), kept as the snapshot's authenticated note (`SnapshotPrefix`): which segment of
/// each replica the snapshot holds the commits of, so a replica that starts from it merges only the
/// segments after those.
///
/// - A migration's barrier (`RelaySnapshot.migration`) is the first replica's store at a new schema
///   version, without stamps: every replica starts from it, and writes again its own commits it does not
///   hold (`SyncCarry`).
/// - A checkpoint (`RelaySnapshot.checkpoint`) is one replica's store with its stamps and set-aside rows,
///   within a migration: a new replica may start from it, and the segments it covers may be pruned.
struct SyncSnapshotNote {
    let kind: RelaySnapshot
    /// The snapshot's number within its kind.
    let number: UInt32
    /// The migration the snapshot is of (a barrier) or after (a checkpoint; 0 before any).
    let migration: UInt32
    /// The snapshot's schema version and its manifest's digest: a replica migrated by another plan to that
    /// version is refused.
    let schemaVersion: String
    let manifestSHA256: String
    /// Per replica, the last segment whose commits the snapshot holds, and its digest (a replica it does
    /// not name: none).
    let covers: [String: (sequence: UInt64, digest: [UInt8])]

    var encoded: String {
        let covered = JSONObject(covers.keys.sorted().map { replica in
            let entry = covers[replica]!
            return (replica, JSONValue.array([.int(Int64(entry.sequence)), .string(Hex.encode(Data(entry.digest)))]))
        })
        return JSONWriter.string(.object(JSONObject([
            ("kind", .string(kind.rawValue)), ("number", .int(Int64(number))), ("migration", .int(Int64(migration))),
            ("schemaVersion", .string(schemaVersion)), ("manifestSHA256", .string(manifestSHA256)), ("covers", .object(covered)),
        ])))
    }

    init(kind: RelaySnapshot, number: UInt32, migration: UInt32, schemaVersion: String, manifestSHA256: String,
         covers: [String: (sequence: UInt64, digest: [UInt8])]) {
        self.kind = kind
        self.number = number
        self.migration = migration
        self.schemaVersion = schemaVersion
        self.manifestSHA256 = manifestSHA256
        self.covers = covers
    }

    /// The note a snapshot holds, which must be of `kind` and `number` when they are given; `file` names the
    /// snapshot in the error when it is not.
    init(decoding note: String?, kind expected: RelaySnapshot? = nil, number expectedNumber: UInt32? = nil, file: String) throws {
        let damaged = SyncError.damaged(file: file, reason: "it is no \(expected?.rawValue ?? "numbered") snapshot (its note is missing or malformed)")
        guard let note, case .object(let o)? = try? JSONParser.parse(note), let kind = o["kind"]?.stringValue.flatMap(RelaySnapshot.init(rawValue:)),
              let number = o["number"]?.intValue.flatMap({ UInt32(exactly: $0) }), let migration = o["migration"]?.intValue.flatMap({ UInt32(exactly: $0) }),
              let version = o["schemaVersion"]?.stringValue, let sha = o["manifestSHA256"]?.stringValue, case .object(let covered)? = o["covers"] else {
            throw damaged
        }
        if (expected != nil && expected != kind) || (expectedNumber != nil && expectedNumber != number) {
            throw SyncError.damaged(file: file, reason: "it says it is \(kind.rawValue) \(number)'s snapshot")
        }
        var covers: [String: (sequence: UInt64, digest: [UInt8])] = [:]
        for member in covered {
            guard case .array(let pair) = member.value, pair.count == 2, let sequence = pair[0].intValue.flatMap({ UInt64(exactly: $0) }),
                  let hex = pair[1].stringValue, let digest = Hex.decode(hex), digest.count == 32 else { throw damaged }
            covers[member.key] = (sequence, [UInt8](digest))
        }
        self.init(kind: kind, number: number, migration: migration, schemaVersion: version, manifestSHA256: sha, covers: covers)
    }
}
