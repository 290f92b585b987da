import Foundation
import Vein

/// `vein sync rotate-key STORE [--sync-key-file NEW]`: a new sync key epoch, or taking the key of the one
/// another replica started (SyncSession.rotateKey, docs/sync.md#rotating-the-sync-key).
enum SyncRotateKeyCommand {
    static let keyFile: OptionKey<String?> = .value("sync-key-file", value: "FILE",
        help: "Where the new key is: made with a new random key when FILE does not exist (mode 0600), taken from FILE when it does. "
            + "Without it the new key is kept in this user's keyring.",
        completion: .file)

    static let spec: CommandSpec = CommandSpec(
        name: "rotate-key",
        abstract: "Start a new sync key epoch, or take the new key another replica made",
        discussion: """
            Starts a new key epoch of STORE's sync: a new sync key, kept in --sync-key-file FILE (made when it \
            does not exist) or in this user's keyring, and a key file on the relay that holds the previous key \
            sealed under the new one. Everything sealed from then on is of the new epoch: a replica given the \
            new key reads the whole sync, old files included; a replica not given it (a lost machine) reads \
            nothing written after, and pushes nothing more. On each other replica, run it with FILE, a copy \
            of the new key (or its 'vein sync export-key'), to take the new key instead; a replica of this \
            user on this machine finds it in the keyring by itself. Safe to run again after a crash. Exit 77 \
            when this replica lacks the new key of a later epoch, 75 when another replica rotated first.
            """,
        arguments: [SharedOptions.store],
        options: [keyFile, SharedOptions.json, SharedOptions.quiet] + SharedOptions.keyOptions,
        examples: [
            ("vein sync rotate-key blog.vein --sync-key-file blog-2.sync-key", "A laptop was lost: a new key, to be copied to the machines kept."),
            ("vein sync rotate-key server.vein --sync-key-file blog-2.sync-key", "On each of them: take the new key."),
        ],
        run: run)

    static func run(_ invocation: Invocation) throws {
        let file = invocation[keyFile]
        let store = try SharedOptions.openStore(invocation)
        if let file, !FileManager.default.fileExists(atPath: file) { try SharedOptions.writeGuard(invocation, store).check(file) }
        let rotation = try SyncSession(store: store).rotateKey(to: file)
        let (epoch, adopted): (UInt32, Bool) = switch rotation {
        case .rotated(let epoch): (epoch, false)
        case .adopted(let epoch): (epoch, true)
        }
        if invocation.wantsJSON {
            invocation.console.outJSON(.object(JSONObject([("epoch", .int(Int64(epoch))), ("adopted", .bool(adopted)),
                                                           ("keyFile", file.map(JSONValue.string) ?? .null)])))
        } else if !invocation.quiet {
            let kept = file.map { "in \($0)" } ?? "in this user's keyring"
            invocation.console.note(adopted ? "\(store.path) now holds the sync key of epoch \(epoch), \(kept)"
                                    : "\(store.path) started sync key epoch \(epoch); the new key is \(kept): give it to every replica kept")
        }
    }
}
