/// What can go wrong syncing a store through a relay (docs/sync.md). Every case that concerns a file of
/// the relay names it.
public enum SyncError: Error, Equatable, Sendable {
    /// The folder is not a relay Vein made.
    case notARelay(String, reason: String)
    /// `init` on a relay that already carries a sync.
    case relayInUse(String, sync: String)
    /// The store is not synced (no sync identity), or synced through another relay.
    case notSynced(String)
    case otherRelay(String, relay: String, sync: String)
    /// The store is synced already (`init` twice).
    case alreadySynced(String, relay: String)
    /// Sync sends the change log; this store keeps none.
    case noChangeLog(String)
    /// A write made outside Vein, or a migration, is in the log since the last push: it cannot be sent.
    case unsendable(String, reason: String)
    /// A replica's commits were made under another schema version.
    case schemaDiffers(replica: String, version: String, local: String)
    /// Another replica migrated the sync (`migration` on the relay `String`), and this store is still at
    /// `version`, before it: it syncs again once migrated by the same plan.
    case mustMigrate(String, migration: UInt32, version: String)
    /// The store was migrated since it last synced (its migration record `commit`), and has not yet
    /// published the migration or started from another replica's (`SyncSession.finishMigration`).
    case migrationUnfinished(String, commit: Int64)
    /// This store was migrated to `version`, and the sync's migration `migration` took the others to `theirs`.
    case migrationDiffers(String, migration: UInt32, version: String, theirs: String)
    /// The relay holds a snapshot of that kind (`migration`, `checkpoint`) and number already: another
    /// replica published it first.
    case snapshotTaken(String, kind: String, number: UInt32)
    /// The relay no longer holds `replica`'s segments after `sequence`, the last this store merged of it:
    /// they were pruned (`SyncSession.prune`) before this replica merged them.
    case prunedPast(String, replica: String, sequence: UInt64)
    /// Another replica told the relay to forget this one (`SyncSession.forget`): it syncs no more.
    case forgotten(String, replica: String)
    /// `forget` names no replica of the relay, or this store's own.
    case noSuchReplica(String, replica: String, own: Bool)
    /// A synced store with rows set aside for a unique value (`SyncConflicts`) is not migrated: a set-aside
    /// row is kept in the old schema's shape.
    case conflictsOpen(String, count: Int)
    /// The relay holds less than this store already received from a replica: it was rolled back.
    case relayWentBack(String, replica: String, sequence: UInt64)
    /// A change another replica made is refused by the store in a way the merge rules do not resolve (a
    /// constraint other than a unique value, which the rules settle: docs/sync.md#unique-values).
    case cannotMerge(replica: String, reason: String)
    /// No row of the store is set aside under this id (`SyncConflicts`).
    case noConflict(String, id: String)
    /// The relay cannot be reached: its server refuses connections or went away, or its client library
    /// is missing.
    case relayUnavailable(String, reason: String)
    /// The relay's server refused a statement: a full disk (`full`), a role without rights, a lost table.
    case relayRefused(String, reason: String, full: Bool)
    /// Another process is pushing this replica's segments.
    case busy(String)
    /// A file of the relay is not what was sealed, or not where its chain says: nothing past it is applied.
    case damaged(file: String, reason: String)
    /// A relay's file was sealed with another key than the sync key file's.
    /// `keySource`: the key file, or the keyring.
    case wrongKey(file: String, keySource: String)
    /// The relay's files of key epoch `epoch` are sealed under a newer key than this replica holds (epoch
    /// `held`): the sync key was rotated.
    case keyRotated(String, epoch: UInt32, held: UInt32)
    /// Another replica rotated the sync key to `epoch` first.
    case rotatedElsewhere(String, epoch: UInt32)
    /// A key given to adopt or rotate to is no key of this sync's next epoch.
    case notTheNewKey(String, reason: String)
    /// No sync key was given, and this user's keyring holds none for the sync.
    case noSyncKey(sync: String)
    /// No sync key file was given, and the keyring that would hold the key cannot be reached.
    case keyringUnreachable(reason: String)
    /// A sync key file that does not hold a 256-bit raw key, or one wrapped under a passphrase.
    case notASyncKey(String)
    /// The passphrase does not open a wrapped sync key.
    case wrongPassphrase(String)

    public var message: String {
        switch self {
        case .notARelay(let path, let reason): return "\(path) is not a Vein sync relay: \(reason)"
        case .relayInUse(let path, let sync): return "\(path) already carries the sync \(sync)"
        case .notSynced(let path): return "\(path) is not synced"
        case .otherRelay(let path, let relay, let sync): return "\(relay) carries the sync \(sync), not the one \(path) belongs to"
        case .alreadySynced(let path, let relay): return "\(path) is synced already, through \(relay)"
        case .noChangeLog(let path): return "\(path) keeps no change log, which sync sends"
        case .unsendable(let path, let reason): return "\(path) cannot be synced: \(reason)"
        case .schemaDiffers(let replica, let version, let local):
            return "replica \(replica) made its changes under schema version \(version), and this store is at \(local)"
        case .mustMigrate(let relay, let migration, let version):
            return "another replica migrated the sync to a newer schema (migration \(migration) on \(relay)), and this store is at \(version)"
        case .migrationDiffers(let path, let migration, let version, let theirs):
            return "\(path) was migrated to schema version \(version), and the sync's migration \(migration) took its replicas to \(theirs)"
        case .migrationUnfinished(let path, let commit):
            return "\(path) was migrated since its last sync (commit \(commit)), and the migration is not yet published to the other replicas"
        case .snapshotTaken(let relay, let kind, let number): return "another replica published \(kind) \(number) of \(relay) first"
        case .prunedPast(let relay, let replica, let sequence):
            return "\(relay) no longer holds replica \(replica)'s segments after \(sequence), the last this replica merged: they were pruned"
        case .forgotten(let relay, let replica): return "replica \(replica) was forgotten by the sync through \(relay): it syncs no more"
        case .noSuchReplica(let relay, let replica, let own):
            return own ? "\(replica) is this store's own replica: a replica forgets others, never itself"
                : "\(relay) knows no replica \(replica)"
        case .conflictsOpen(let path, let count):
            return "\(path) has \(count) row\(count == 1 ? "" : "s") set aside for a unique value, which a migration of a synced store would leave behind"
        case .relayWentBack(let path, let replica, let sequence):
            return "\(path) went back: replica \(replica)'s segment \(sequence), already received, is missing or different"
        case .cannotMerge(let replica, let reason): return "a change from replica \(replica) cannot be merged: \(reason)"
        case .noConflict(let path, let id): return "\(path) has no conflict of a row \(id)"
        case .relayUnavailable(let relay, let reason): return "the relay \(relay) cannot be reached: \(reason)"
        case .relayRefused(let relay, let reason, let full):
            return full ? "the relay \(relay) is full: \(reason)" : "the relay \(relay) refused a write or read: \(reason)"
        case .busy(let path): return "another process is syncing this replica through \(path)"
        case .damaged(let file, let reason): return "\(file) is damaged: \(reason)"
        case .wrongKey(let file, let keySource): return "\(file) was sealed with another key than the sync key in \(keySource)"
        case .keyRotated(let relay, let epoch, let held):
            return "the sync key was rotated: \(relay) holds files of key epoch \(epoch), and this replica holds the key of epoch \(held)"
        case .rotatedElsewhere(let relay, let epoch): return "another replica rotated the sync key of \(relay) to epoch \(epoch) first"
        case .notTheNewKey(let path, let reason): return "\(path) is not the new sync key: \(reason)"
        case .keyringUnreachable(let reason): return "no sync key file was given, and the keyring cannot be reached: \(reason)"
        case .noSyncKey(let sync): return "no sync key was given, and this user's keyring holds none of the sync \(sync)"
        case .notASyncKey(let path): return "\(path) is not a sync key: a sync key is 64 hex digits (a raw 256-bit key), or one wrapped under a passphrase"
        case .wrongPassphrase(let path): return "the passphrase does not open the sync key in \(path)"
        }
    }
}

extension SyncError: CustomStringConvertible {
    public var description: String { message }
}
