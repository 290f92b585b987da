import Foundation
import Vein

/// `vein sync STORE [--watch]`: sends this replica's new commits to the relay and merges the others'
/// (SyncSession, docs/sync.md); `init`, `join` and `status` below it.
enum SyncCommand {
    static let watch: OptionKey<Bool> = .flag("watch", help: "Keep running: sync after each commit to STORE, and every few seconds for the others'.")

    static let spec: CommandSpec = CommandSpec(
        name: "sync",
        abstract: "Sync a store with its other replicas through a relay",
        discussion: """
            Sends the commits made to STORE since its last sync to the relay, as sealed, numbered segments \
            (AES-256-GCM under the sync key; the relay sees sizes and counts, never models, fields, ids or \
            values), then merges every other replica's segments it has not yet applied, each in one \
            transaction: per field the newest write wins (hybrid clock time, then replica id), a delete wins \
            over a concurrent update, a list's members merge one by one, and of two rows given one unique \
            value the first claim stays while the other is set aside whole ('vein sync conflicts'). Every \
            replica that has received the same segments holds the same store. STORE must have been made a replica with 'vein sync init' or \
            'vein sync join'; the relay and the sync key file are the ones named then. A run does everything \
            there is to do and exits, so cron can call it; --watch keeps it running. Exit 65 naming the file \
            when a segment is damaged, out of place or from another sync (nothing past it is applied), 75 \
            when another run is pushing this replica, 77 when the sync key does not open the relay's files.
            """,
        arguments: [SharedOptions.store],
        options: [watch, SharedOptions.json, SharedOptions.quiet] + SharedOptions.keyOptions,
        subcommands: [SyncInitCommand.spec, SyncJoinCommand.spec, SyncStatusCommand.spec, SyncConflictsCommand.spec, SyncExportKeyCommand.spec, SyncRotateKeyCommand.spec, SyncPruneCommand.spec, SyncForgetCommand.spec],
        examples: [
            ("vein sync blog.vein", "Send and receive what changed (from cron, every minute)."),
            ("vein sync blog.vein --watch", "Keep the replica in sync while it runs."),
        ],
        run: run)

    /// How often `--watch` looks for new commits and new segments.
    static let pollInterval = 0.2
    static let pullEvery = 10

    static func run(_ invocation: Invocation) throws {
        let store = try SharedOptions.openStore(invocation)
        let session = try SyncSession(store: store)
        var seen = try store.database.scalar("PRAGMA data_version")
        try report(try session.push(), try session.pull(), session: session, invocation: invocation)
        guard invocation[watch] else { return }
        var looks = 0
        while true {
            let told = try session.waitForNews(seconds: pollInterval)
            looks += 1
            let version = try store.database.scalar("PRAGMA data_version")
            guard version != seen || told || looks % pullEvery == 0 else { continue }
            do {
                let pushed = try session.push(), pulled = try session.pull()
                seen = try store.database.scalar("PRAGMA data_version")
                if pushed.segments + pulled.segments > 0 { try report(pushed, pulled, session: session, invocation: invocation) }
            } catch let error as DatabaseError where error.isBusy {
                continue  // another process holds the store's write lock: the next look tries again
            }
        }
    }

    static func report(_ pushed: SyncSession.Report, _ pulled: SyncSession.Report, session: SyncSession, invocation: Invocation) throws {
        let conflicts = try SyncConflicts(store: session.store).list().count
        if invocation.wantsJSON {
            invocation.console.outJSON(.object(JSONObject([
                ("replica", .string(session.replica)), ("relay", .string(session.relay.location)),
                ("sent", .object(JSONObject([("segments", .int(Int64(pushed.segments))), ("commits", .int(Int64(pushed.transactions)))]))),
                ("received", .object(JSONObject([("segments", .int(Int64(pulled.segments))), ("commits", .int(Int64(pulled.transactions)))]))),
                ("waiting", .object(JSONObject(pulled.waiting.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))),
                ("conflicts", .int(Int64(conflicts))),
            ])))
            return
        }
        guard !invocation.quiet else { return }
        invocation.console.note("sent \(Phrase.count(pushed.transactions, "commit")) in \(Phrase.count(pushed.segments, "segment")), "
                                + "received \(Phrase.count(pulled.transactions, "commit")) in \(Phrase.count(pulled.segments, "segment"))")
        for (replica, reason) in pulled.waiting.sorted(by: { $0.key < $1.key }) {
            invocation.console.note("replica \(replica): \(reason), not on the relay yet")
        }
        if conflicts > 0 {
            invocation.console.note("\(Phrase.count(conflicts, "row")) set aside for a unique value another row holds: "
                                    + "'vein sync conflicts \(ArgumentOrder.shellWord(session.store.path))' lists them")
        }
    }

    static let relay: OptionKey<String> = .required("relay", value: "RELAY",
        help: "The relay every replica can reach: a folder (a path or a file:// URL) or a PostgreSQL database (a postgres:// URL).",
        completion: .file)
    static let syncKeyFile: OptionKey<String?> = .value("sync-key-file", value: "FILE",
        help: "The sync key: 64 hex digits, mode 0600, made when it does not exist (init); give every replica a copy, never through the relay. "
            + "Without it the key is in this user's keyring: init keeps a new one there, join finds it.",
        completion: .file)
}

/// `vein sync init STORE --relay RELAY --sync-key-file FILE`: STORE becomes the first replica of a new sync.
enum SyncInitCommand {
    static let spec: CommandSpec = CommandSpec(
        name: "init",
        abstract: "Make a store the first replica of a new sync",
        discussion: """
            Makes RELAY (a new or empty folder, or a PostgreSQL database named by a postgres:// URL) the \
            relay of a new sync, writes a sealed snapshot of STORE there for new replicas to start from, and \
            records the sync in STORE. The sync key comes from --sync-key-file, made with a new random key \
            when FILE does not exist; copy it to each machine that joins, by any way but the relay. Without \
            --sync-key-file a new key is kept in this user's keyring (kind sync), where a replica joined on \
            this machine finds it; 'vein sync export-key' carries it elsewhere. STORE must keep a change log ('vein history enable'): sync \
            sends its commits.
            """,
        arguments: [SharedOptions.store],
        options: [SyncCommand.relay, SyncCommand.syncKeyFile, SharedOptions.json, SharedOptions.quiet] + SharedOptions.keyOptions,
        examples: [("vein sync init blog.vein --relay /mnt/nas/blog-sync --sync-key-file ~/.config/vein/blog.sync-key",
                    "The first replica; then 'vein sync join' on each other machine.")],
        run: run)

    static func run(_ invocation: Invocation) throws {
        let relay = invocation[SyncCommand.relay]
        let keyFile = invocation[SyncCommand.syncKeyFile]
        let store = try SharedOptions.openStore(invocation)
        if let keyFile, !FileManager.default.fileExists(atPath: keyFile) { try SharedOptions.writeGuard(invocation, store).check(keyFile) }
        let made = try SyncSession.begin(store, relay: relay, keyFile: keyFile)
        let replica = try SyncSession(store: store).replica
        if invocation.wantsJSON {
            invocation.console.outJSON(.object(JSONObject([("sync", .string(made.syncID)), ("relay", .string(made.location)), ("replica", .string(replica))])))
        } else if !invocation.quiet {
            invocation.console.note("\(store.path) is replica \(replica) of sync \(made.syncID), through \(made.location)")
        }
    }
}

/// `vein sync join NEW --relay RELAY --sync-key-file FILE`: a new replica from the relay.
enum SyncJoinCommand {
    static let newStore: ArgumentKey<String> = .required("NEW", help: "The replica to create. It must not exist.", completion: .file)
    static let plaintext: OptionKey<Bool> = .flag("plaintext", help: "Do not encrypt NEW.")

    static let spec: CommandSpec = CommandSpec(
        name: "join",
        abstract: "Make a new replica of a synced store from its relay",
        discussion: """
            Creates NEW from the relay's snapshot (complete or absent), with a change log and replica id of its \
            own, then merges every replica's segments as 'vein sync' does. NEW is encrypted with the key options \
            given (an existing key file, or a new one), by default with a new random key kept in the keyring: \
            each replica keeps its own store key, and only the sync key is shared. A sync of a plaintext store \
            joins in plaintext unless a key option is given. Without --sync-key-file the sync key is looked up \
            in this user's keyring. FILE may be the sync key wrapped under a passphrase \
            ('vein sync export-key'): the passphrase is asked, and the key is kept unwrapped in NEW.sync-key \
            (mode 0600), which NEW syncs with from then on.
            """,
        arguments: [newStore],
        options: [SyncCommand.relay, SyncCommand.syncKeyFile, plaintext] + SharedOptions.keyOptions
            + [SharedOptions.weakPassphrase, SharedOptions.json, SharedOptions.quiet],
        examples: [("vein sync join laptop.vein --relay /mnt/nas/blog-sync --sync-key-file ~/.config/vein/blog.sync-key",
                    "A replica on another machine.")],
        run: run)

    static func run(_ invocation: Invocation) throws {
        let relay = invocation[SyncCommand.relay]
        let keyFile = invocation[SyncCommand.syncKeyFile]
        let keys = SharedOptions.keyOptions(invocation)
        let explicitKey = keys.keyFile != nil || keys.keyEnv != nil || keys.passphrase
        if invocation[plaintext], explicitKey {
            throw UsageError(message: "--plaintext cannot be combined with a key option", command: "sync join")
        }
        let (key, wrapped) = try keyFile.map { try SyncKey.read($0, readPassphrase: { try PassphrasePrompt.read(confirm: false) }) }
            ?? (SyncKey.fromKeyring(relay: relay), false)
        // A wrapped key ('vein sync export-key') is kept raw beside NEW, so the replica syncs without asking.
        let keptKey = wrapped ? invocation[newStore] + ".sync-key" : keyFile
        if wrapped, let keptKey, FileManager.default.fileExists(atPath: keptKey) {
            throw CommandFailure("\(keptKey) already exists", hint: "move it away: 'vein sync join' keeps the unwrapped sync key there", exitCode: .cannotCreate)
        }
        let copy = try SyncSession.join(relay: relay, key: key, keyFile: keyFile, to: invocation[newStore]) { sourceEncrypted in
            invocation[plaintext] || (!sourceEncrypted && !explicitKey) ? .plaintext : .encrypted(keys)
        }
        let store = try Store.open(invocation[newStore], keys: keys)
        store.changeAuthor = "vein sync join"
        if wrapped, let keptKey {
            try SharedOptions.writeGuard(invocation, store).check(keptKey)
            try SyncKey.keep(key, at: keptKey)
        }
        try SyncSession.adopt(store, relay: try SyncRelay.open(relay), keyFile: keptKey)
        let session = try SyncSession(store: store)
        let pulled = try session.pull()
        if invocation.wantsJSON {
            invocation.console.outJSON(.object(JSONObject([("store", .string(copy.creation.path)), ("replica", .string(session.replica)),
                                                           ("sync", .string(session.relay.syncID)), ("commits", .int(Int64(pulled.transactions)))])))
        } else if !invocation.quiet {
            invocation.console.note("\(copy.creation.path) is replica \(session.replica) of sync \(session.relay.syncID): snapshot and "
                                    + "\(Phrase.count(pulled.transactions, "commit")) in \(Phrase.count(pulled.segments, "segment")) merged"
                                    + (copy.creation.encryption.isEncrypted ? ", key in the \(copy.creation.encryption.keySource)" : "")
                                    + (wrapped ? "; the sync key is kept in \(keptKey ?? "")" : ""))
        }
    }
}

/// `vein sync status STORE`: the sync, the replicas on the relay, what is pending either way.
enum SyncStatusCommand {
    static let spec: CommandSpec = CommandSpec(
        name: "status",
        abstract: "Show a replica's sync: the relay, the other replicas, what is waiting to go either way",
        discussion: """
            Reads STORE's sync record and the relay's listing (decrypting nothing): this replica's id, the \
            commits not yet sent, for each replica on the relay its segments there, how many of them \
            STORE has merged and when it last wrote one (its newest segment's clear header), the rows set aside for a unique value ('vein sync conflicts'), and the key epoch \
            STORE holds against the relay's ('vein sync rotate-key'), and its schema version with the sync's \
            migrations ('vein migrate'). Writes nothing.
            """,
        arguments: [SharedOptions.store],
        options: [SharedOptions.json] + SharedOptions.keyOptions,
        examples: [("vein sync status blog.vein", "What a cron job's last run left.")],
        run: run)

    static func run(_ invocation: Invocation) throws {
        let store = try SharedOptions.openStore(invocation, mode: .readOnly)
        let status = try SyncSession(store: store).status()
        if invocation.wantsJSON {
            invocation.console.outJSON(.object(JSONObject([
                ("sync", .string(status.syncID)), ("relay", .string(status.relay)), ("replica", .string(status.replica)),
                ("unsent", .int(Int64(status.unsent))), ("conflicts", .int(Int64(status.conflicts))),
                ("keyEpoch", .int(Int64(status.keyEpoch))), ("relayKeyEpoch", .int(Int64(status.relayKeyEpoch))),
                ("schemaVersion", .string(status.schemaVersion)), ("migration", .int(Int64(status.migration))),
                ("relayMigration", .int(Int64(status.relayMigration))),
                ("replicas", .array(status.replicas.map { r in
                    .object(JSONObject([("replica", .string(r.replica)), ("onRelay", .int(Int64(r.onRelay))), ("newest", .int(Int64(r.newest))),
                                        ("merged", .int(Int64(r.merged))), ("forgotten", .bool(r.forgotten)),
                                        ("lastSeen", r.lastSeen.map { .string(ISODate.format($0.timeIntervalSince1970)) } ?? .null),
                                        ("self", .bool(r.replica == status.replica))]))
                })),
            ])))
            return
        }
        invocation.console.out("sync \(status.syncID) through \(status.relay)")
        invocation.console.out("this replica: \(status.replica), \(Phrase.count(status.unsent, "commit")) not yet sent")
        invocation.console.out("sync key: epoch \(status.keyEpoch)")
        if status.relayKeyEpoch > status.keyEpoch {
            invocation.console.out("the sync key was rotated to epoch \(status.relayKeyEpoch): 'vein sync rotate-key "
                                   + "\(ArgumentOrder.shellWord(invocation[SharedOptions.store])) --sync-key-file FILE' takes the new key")
        }
        invocation.console.out("schema: \(status.schemaVersion)" + (status.migration > 0 ? ", from migration \(status.migration)" : ""))
        if status.relayMigration > status.migration {
            invocation.console.out("the other replicas migrated (migration \(status.relayMigration)): 'vein migrate "
                                   + "\(ArgumentOrder.shellWord(invocation[SharedOptions.store])) --plan PLAN' with their plan, before it syncs again")
        }
        for r in status.replicas where r.replica != status.replica {
            let seen = r.lastSeen.map { ", last seen \(ISODate.format($0.timeIntervalSince1970))" } ?? ""
            let pruned = r.onRelay < r.newest ? " (\(r.newest - r.onRelay + 1) to \(r.newest); those before were pruned)" : ""
            let forgotten = r.forgotten ? " (forgotten)" : ""
            invocation.console.out("replica \(r.replica)\(forgotten): \(Phrase.count(r.onRelay, "segment")) on the relay\(pruned), \(r.merged) merged\(seen)")
        }
        if status.conflicts > 0 {
            invocation.console.out("\(Phrase.count(status.conflicts, "row")) set aside for a unique value another row holds: "
                                   + "'vein sync conflicts \(ArgumentOrder.shellWord(invocation[SharedOptions.store]))' lists them")
        }
    }
}

/// `vein sync export-key STORE --to FILE`: the sync key wrapped under a passphrase.
enum SyncExportKeyCommand {
    static let output: OptionKey<String> = .required("to", value: "FILE", help: "The file to write (mode 0600); it must not exist.", completion: .file)

    static let spec: CommandSpec = CommandSpec(
        name: "export-key",
        abstract: "Write a sync's key, wrapped under a passphrase",
        discussion: """
            Writes STORE's sync key to FILE, sealed (AES-256-GCM) under a key derived from a passphrase \
            (PBKDF2-HMAC-SHA256), asked twice on a terminal or read as one line from standard input. Carry FILE to \
            a machine that has nothing else and give it to 'vein sync join NEW --sync-key-file FILE', which asks \
            the passphrase. Never put it in the relay.
            """,
        arguments: [SharedOptions.store],
        options: [output] + SharedOptions.keyOptions + [SharedOptions.weakPassphrase],
        examples: [("vein sync export-key blog.vein --to blog-sync.key", "For the laptop; keep the passphrase apart from the file.")],
        run: run)

    static func run(_ invocation: Invocation) throws {
        let store = try SharedOptions.openStore(invocation, mode: .readOnly)
        let path = invocation[output]
        try SharedOptions.writeGuard(invocation, store).check(path)
        let passphrase = try PassphrasePrompt.read(confirm: true)
        if passphrase.count < CipherKey.minimumPassphraseLength, !invocation[SharedOptions.weakPassphrase] {
            throw CommandFailure("the passphrase is shorter than \(CipherKey.minimumPassphraseLength) characters",
                                 hint: "choose a longer one, or accept it with --weak-passphrase", exitCode: .usage)
        }
        try SyncKey.export(store, to: path, passphrase: passphrase)
        if !invocation.quiet { invocation.console.note("wrote the sync key of \(store.path) to \(path), sealed under the passphrase") }
    }
}
