import Foundation

/// A migration barrier (docs/sync.md#migrations): what the first replica to migrate a sync publishes, a
/// snapshot of its store at the new schema version, with which segment of each replica that snapshot
/// holds the commits of. Every replica at the new version starts from it: the segments it covers are
/// in it, and each replica's commits it does not cover are written again at the new version by that
/// replica when it migrates (`SyncCarry`). Kept as the snapshot's authenticated note (`SnapshotPrefix`).
struct SyncBarrier {
    /// Which migration of the sync it is: 1 for the first (the relay's `migration-00000001.vseal`).
    let number: UInt32
    /// The schema version of the snapshot, and its manifest's digest: a replica migrated by another plan
    /// to that version is refused.
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
            ("migration", .int(Int64(number))), ("schemaVersion", .string(schemaVersion)), ("manifestSHA256", .string(manifestSHA256)),
            ("covers", .object(covered)),
        ])))
    }

    init(number: UInt32, schemaVersion: String, manifestSHA256: String, covers: [String: (sequence: UInt64, digest: [UInt8])]) {
        self.number = number
        self.schemaVersion = schemaVersion
        self.manifestSHA256 = manifestSHA256
        self.covers = covers
    }

    /// The barrier a snapshot's note holds; `file` names the snapshot in the error when it holds none.
    init(decoding note: String?, file: String) throws {
        let damaged = SyncError.damaged(file: file, reason: "it is no migration's snapshot (its note is missing or malformed)")
        guard let note, case .object(let o)? = try? JSONParser.parse(note), let number = o["migration"]?.intValue.flatMap({ UInt32(exactly: $0) }),
              let version = o["schemaVersion"]?.stringValue, let sha = o["manifestSHA256"]?.stringValue, case .object(let covered)? = o["covers"] else {
            throw damaged
        }
        var covers: [String: (sequence: UInt64, digest: [UInt8])] = [:]
        for member in covered {
            guard case .array(let pair) = member.value, pair.count == 2, let sequence = pair[0].intValue.flatMap({ UInt64(exactly: $0) }),
                  let hex = pair[1].stringValue, let digest = Hex.decode(hex), digest.count == 32 else { throw damaged }
            covers[member.key] = (sequence, [UInt8](digest))
        }
        self.init(number: number, schemaVersion: version, manifestSHA256: sha, covers: covers)
    }
}
