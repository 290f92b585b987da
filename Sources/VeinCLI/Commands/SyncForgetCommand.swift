import Foundation
import Vein

/// `vein sync forget STORE --replica ID`: the relay forgets a replica that will not sync again, so
/// pruning waits for it no more (SyncSession.forget, docs/sync.md#pruning).
enum SyncForgetCommand {
    static let replica: OptionKey<String> = .required("replica", value: "ID",
        help: "The replica to forget, as 'vein sync status' lists it.")

    static let spec: CommandSpec = CommandSpec(
        name: "forget",
        abstract: "Tell the relay to forget a replica that will not sync again",
        discussion: """
            Marks replica ID forgotten on STORE's relay, for a machine that is gone (lost, wiped, replaced): \
            'vein sync prune' on the other replicas waits for it no more, and if it comes back, 'vein sync' \
            refuses it (exit 65) and it is joined again as a new replica; its commits not yet sent are not \
            carried. Its segments already on the relay stay and are merged as before. To also keep a lost \
            machine from reading what is written after, rotate the sync key ('vein sync rotate-key'). \
            Writes nothing in STORE. Exit 64 when ID is STORE's own replica or no replica of the relay.
            """,
        arguments: [SharedOptions.store],
        options: [replica, SharedOptions.json, SharedOptions.quiet] + SharedOptions.keyOptions,
        examples: [("vein sync forget blog.vein --replica 01JDQ8ZK3M8Q2V6Y0X9T4B7C1D", "The old laptop will not sync again.")],
        run: run)

    static func run(_ invocation: Invocation) throws {
        let store = try SharedOptions.openStore(invocation, mode: .readOnly)
        let id = invocation[replica]
        try SyncSession(store: store).forget(id)
        if invocation.wantsJSON {
            invocation.console.outJSON(.object(JSONObject([("forgotten", .string(id))])))
        } else if !invocation.quiet {
            invocation.console.note("sync: replica \(id) is forgotten; pruning waits for it no more, and it syncs no more")
        }
    }
}
