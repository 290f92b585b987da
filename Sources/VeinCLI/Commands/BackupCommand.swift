import Foundation
import Vein

/// `vein backup`: a consistent copy of a store (StoreCopier), or with `--continuous` a folder of sealed
/// snapshots and change-log segments (ContinuousBackup, docs/backup.md).
enum BackupCommand {
    static let destination: ArgumentKey<String> = .required("DEST",
        help: "The backup to create (it must not exist); with --continuous, the backup folder (new, empty, or this store's).", completion: .file)
    static let newKey: OptionKey<Bool> = .flag("new-key",
        help: "Encrypt the backup with a fresh random key kept in the keyring (with --continuous: the backup's own key, kept there).")
    static let continuous: OptionKey<Bool> = .flag("continuous",
        help: "Keep DEST as a folder: a sealed snapshot, then the change log's new commits as sealed, numbered segments.")
    static let watch: OptionKey<Bool> = .flag("watch", help: "With --continuous: keep running, sending each commit within a second.")
    static let keepDays: OptionKey<String?> = .value("keep-days", value: "N",
        help: "With --continuous: remove generations whose every moment is older than N days (default 7).")

    static let spec: CommandSpec = CommandSpec(
        name: "backup",
        abstract: "Take a consistent copy of a store while it is in use, once or continuously",
        discussion: """
            Copies STORE into a new DEST in one read transaction, so other processes go on reading and writing \
            and the copy holds exactly the commits made before it began. DEST is encrypted with STORE's key \
            (kept in the keyring under DEST's path too when STORE's key comes from the keyring, with a record \
            of the backup, its time and the key's fingerprint beside STORE's key, for 'vein key forget'), or with \
            --new-key a fresh random key kept in the keyring. DEST is complete or absent and never replaces a \
            file; neither DEST nor the files SQLite writes beside it may lead to STORE or its key file (through \
            a link or another name). Quiet unless asked (--json prints size, rows and duration), with exit \
            statuses for cron: 0 done, 73 DEST exists, leads to STORE or has a DEST-wal or DEST-journal left \
            beside it, 74 a full disk or an I/O error, 75 \
            STORE busy, 77 wrong key.

            With --continuous, DEST is a folder and STORE must keep a change log ('vein history enable'). The \
            first run writes a sealed snapshot; each later run sends the commits made since as one sealed, \
            numbered segment (AES-256-GCM; each file names the one before it by digest, so a missing, \
            reordered, replayed or altered file is found). A new generation starts with a new snapshot after a \
            migration, writes made outside Vein, a new backup key (a key rotation), a log pruned past what was \
            sent, or when the segments outgrow their snapshot. The backup key is derived from STORE's key \
            unless --backup-key-file or --new-key gives the backup its own; nothing in DEST is readable \
            without it. A run sends everything committed before it began, so cron can call it; --watch keeps \
            it running. Exit 75 when another run writes to DEST.
            """,
        arguments: [SharedOptions.store, destination],
        options: [newKey, continuous, watch, BackupKeyOptionsCLI.backupKeyFile, keepDays, SharedOptions.json, SharedOptions.quiet] + SharedOptions.keyOptions,
        subcommands: [BackupVerifyCommand.spec, BackupExportKeyCommand.spec],
        examples: [
            ("vein backup blog.vein /backups/blog-$(date +%F).vein --json", "A nightly backup from cron."),
            ("vein backup blog.vein /mnt/nas/blog --continuous", "Send what changed since the last run (from cron, every minute)."),
            ("vein backup blog.vein /mnt/nas/blog --continuous --watch", "Send each commit as it happens."),
        ],
        run: run)

    static func run(_ invocation: Invocation) throws {
        if invocation[continuous] || invocation[watch] {
            return try ContinuousBackupCLI.run(invocation)
        }
        if invocation[BackupKeyOptionsCLI.backupKeyFile] != nil || invocation[keepDays] != nil {
            throw UsageError(message: "--backup-key-file and --keep-days are for continuous backups: add --continuous", command: "backup")
        }
        let keys = SharedOptions.keyOptions(invocation)
        let store = try SharedOptions.openStore(invocation, mode: .readOnly)
        let protection: StoreCreator.Protection
        switch store.encryption {
        case .plaintext:
            guard !invocation[newKey] else {
                throw CommandFailure("\(store.path) is not encrypted; --new-key needs an encrypted store", hint: "use 'vein encrypt' for an encrypted copy",
                                     exitCode: .usage)
            }
            protection = .plaintext
        case .encrypted(_, let source):
            if invocation[newKey] {
                protection = .existingKey(try CipherKey.random(), source: .keyring, keyring: keys.keyring, app: store.meta.app)
            } else {
                // From the keyring: the backup gets its own item there, and a record of it beside the store's key.
                let keyring = source == .keyring ? keys.keyring : nil
                protection = .existingKey(try store.keyForCopies(), source: source, keyring: keyring, app: store.meta.app,
                                          backupOf: keyring == nil ? nil : store.realPath)
            }
        }
        let result = try StoreCopier.copy(store, to: invocation[destination], protection: protection,
                                          snapshotTaken: TestHooks.backupGate(invocation.environment))
        if invocation.wantsJSON { CopyOutput.print(result, verb: "backup", invocation: invocation) }
    }
}

/// `--backup-key-file`, shared by the commands that read or write continuous backups.
enum BackupKeyOptionsCLI {
    static let backupKeyFile: OptionKey<String?> = .value("backup-key-file", value: "FILE",
        help: "The backup's own key: 64 hex digits, or a key 'vein backup export-key' wrapped under a passphrase. A backup run makes FILE (mode 0600) when it does not exist.",
        completion: .file)

    static func options(_ invocation: Invocation, newKey: Bool = false) -> BackupKeyOptions {
        BackupKeyOptions(keyFile: invocation[backupKeyFile], newKey: newKey, keyring: SecretServiceKeyring(),
                         readPassphrase: { try PassphrasePrompt.read(confirm: false) }, storeKeys: SharedOptions.keyOptions(invocation))
    }

    /// The folder's files' keys, by key id, found once each.
    static func keys(_ invocation: Invocation, folder: BackupFolder) -> BackupKeys {
        let options = options(invocation)
        var found: [[UInt8]: BackupKey] = [:]
        return { id, file in
            if let key = found[id] { return key }
            let key = try options.keyForReading(folder: folder, id: id, file: file)
            found[id] = key
            return key
        }
    }
}
