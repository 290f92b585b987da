import Foundation
import Vein

/// `vein sync prune STORE`: a checkpoint on the relay, and this replica's segments it covers removed
/// once every replica has merged them (SyncSession.prune, docs/sync.md#pruning).
enum SyncPruneCommand {
    static let spec: CommandSpec = CommandSpec(
        name: "prune",
        abstract: "Remove this replica's segments every replica has merged from the relay",
        discussion: """
            Syncs STORE once (as 'vein sync' does), then seals a checkpoint of it on the relay when the \
            relay's newest checkpoint does not yet hold what it sent: the store with the stamps merges \
            compare, which a new replica ('vein sync join') starts from. Then removes from the relay the \
            segments of STORE's replica that the newest checkpoint holds and that every replica joined \
            had merged when it wrote its newest segment, never the newest, and the older checkpoints. \
            Each replica prunes only its own segments: run it on each (from cron, daily). A replica's prune \
            also sends a segment without commits that says what it merged, when its newest one does not. \
            Every replica joined is waited for: one that stays away holds pruning back, and the output \
            names it. A store put back from an older copy of itself may find what it needs pruned: \
            'vein sync' says so (exit 65), and a new replica joined with 'vein sync join' takes its place. \
            Exit 75 when another run is syncing this replica.
            """,
        arguments: [SharedOptions.store],
        options: [SharedOptions.json, SharedOptions.quiet] + SharedOptions.keyOptions,
        examples: [("vein sync prune blog.vein", "Keep the relay small (from cron, once a day, on every replica).")],
        run: run)

    static func run(_ invocation: Invocation) throws {
        let store = try SharedOptions.openStore(invocation)
        let pruning = try SyncSession(store: store).prune()
        if invocation.wantsJSON {
            invocation.console.outJSON(.object(JSONObject([
                ("checkpoint", .int(Int64(pruning.checkpoint))), ("published", .bool(pruning.published != nil)),
                ("removed", .int(Int64(pruning.removed))), ("prunedThrough", .int(Int64(pruning.prunedThrough))),
                ("checkpointsRemoved", .int(Int64(pruning.checkpointsRemoved))),
                ("waitingFor", .object(JSONObject(pruning.waitingFor.keys.sorted().map { ($0, .int(Int64(pruning.waitingFor[$0]!))) }))),
            ])))
            return
        }
        guard !invocation.quiet else { return }
        if let published = pruning.published { invocation.console.note("sync: published checkpoint \(published) on the relay") }
        if pruning.checkpoint == 0 {
            invocation.console.note("sync: the relay has no checkpoint of this migration yet; nothing was removed")
            return
        }
        invocation.console.note("sync: removed \(Phrase.count(pruning.removed, "segment")) of this replica "
                                + (pruning.prunedThrough > 0 ? "(pruned through segment \(pruning.prunedThrough))" : "(none pruned yet)")
                                + (pruning.checkpointsRemoved > 0 ? " and \(Phrase.count(pruning.checkpointsRemoved, "older checkpoint"))" : ""))
        for (other, acknowledged) in pruning.waitingFor.sorted(by: { $0.key < $1.key }) {
            invocation.console.note("sync: replica \(other) has merged this replica's segments through \(acknowledged) only; "
                                    + "later ones stay until it syncs again")
        }
    }
}
