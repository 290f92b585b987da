import Foundation
import Vein

/// `vein restore DEST NEW [--at TIME|TOKEN]`: a store rebuilt from a continuous backup (docs/backup.md#restoring).
enum RestoreCommand {
    static let folder: ArgumentKey<String> = .required("DEST", help: "The continuous backup's folder.", completion: .file)
    static let newStore: ArgumentKey<String> = .required("NEW", help: "The store to create. It must not exist.", completion: .file)
    static let at: OptionKey<String?> = .value("at", value: "TIME|TOKEN",
        help: "Restore the store as it was at TIME (ISO 8601 with Z or an offset, optional fraction) or after commit TOKEN (as 'vein history' prints it).")
    static let plaintext: OptionKey<Bool> = .flag("plaintext", help: "Do not encrypt NEW.")

    static let spec: CommandSpec = CommandSpec(
        name: "restore",
        abstract: "Rebuild a store from a continuous backup, as it was at a moment",
        discussion: """
            Unseals the newest snapshot in DEST at or before the moment (--at; the newest state without it), \
            replays the segments after it up to that moment, whole commits only, checks the result as 'vein \
            verify' does, and writes it to NEW, complete or absent. NEW gets a change log of its own (it is a \
            new file, with its own replica id). The backup's key comes from --backup-key-file, from the keyring \
            (where a backup of a store whose key is there keeps it), or is derived from the store's key given \
            with --key-file, --key-env or --passphrase. NEW is encrypted with the key options given (an existing \
            key file, or a new one), by default with a new random key kept in the keyring; a backup of a \
            plaintext store restores in plaintext unless a key option is given. Exit 65 naming the file when a \
            snapshot or segment is damaged, missing, out of place or from another store; nothing is written then.
            """,
        arguments: [folder, newStore],
        options: [at, BackupKeyOptionsCLI.backupKeyFile, plaintext] + SharedOptions.keyOptions
            + [SharedOptions.weakPassphrase, SharedOptions.json, SharedOptions.quiet],
        examples: [
            ("vein restore /mnt/nas/blog blog-restored.vein", "The newest state the backup holds."),
            ("vein restore /mnt/nas/blog before-the-mistake.vein --at 2026-12-07T09:30:00Z", "The store as it was at 09:30 UTC."),
        ],
        run: run)

    static func run(_ invocation: Invocation) throws {
        var point: HistoryPoint?
        if let text = invocation[at] {
            guard let parsed = HistoryPoint(parsing: text) else {
                throw UsageError(message: "--at takes a time (ISO 8601 with Z or an offset, such as 2026-12-01T09:30:00Z) "
                                 + "or a token (a whole number, as 'vein history' prints), not \"\(text)\"", command: "restore")
            }
            point = parsed
        }
        let keys = SharedOptions.keyOptions(invocation)
        let explicitKey = keys.keyFile != nil || keys.keyEnv != nil || keys.passphrase
        if invocation[plaintext], explicitKey {
            throw UsageError(message: "--plaintext cannot be combined with a key option", command: "restore")
        }
        let backup = try BackupFolder.open(invocation[folder])
        let result = try BackupRestore.restore(backup, keys: BackupKeyOptionsCLI.keys(invocation, folder: backup), to: invocation[newStore],
                                               protection: { sourceEncrypted in
            if invocation[plaintext] || (!sourceEncrypted && !explicitKey) { return .plaintext }
            // A new key for NEW goes to the keyring: one that cannot be reached is said now, before the
            // segments are read, not after.
            if !explicitKey, let keyring = keys.keyring {
                do { _ = try keyring.items(matching: [KeyringAttribute.kind: "none"]) } catch {
                    throw CommandFailure("no keyring to keep \(invocation[newStore])'s new key in (\(String(describing: error)))",
                                         hint: "give NEW a key with --key-file FILE (made when it does not exist), or restore it with --plaintext",
                                         exitCode: .unavailable)
                }
            }
            return .encrypted(keys)
        }, at: point)
        if invocation.wantsJSON {
            invocation.console.outJSON(json(result))
        } else if !invocation.quiet, let copy = result.copy {
            invocation.console.note("restored \(copy.creation.path) from generation \(result.generation), "
                                    + (result.lastSegment == 0 ? "its snapshot" : "last segment \(result.lastSegment)")
                                    + " at \(moment(result)): \(Phrase.count(result.transactionsApplied, "commit")) replayed, \(Phrase.rows(copy.rows))"
                                    + (copy.creation.encryption.isEncrypted ? ", key in the \(copy.creation.encryption.keySource)" : ""))
        }
    }

    /// "token 42 (2026-12-07T09:30:00.123Z)", or "token 0" for a snapshot of a log with no commit yet.
    static func moment(_ result: BackupRestore.Result) -> String {
        "token \(result.lastToken)" + (result.lastClock > 0 ? " (\(ISODate.format(HybridClock.date(of: result.lastClock).timeIntervalSince1970)))" : "")
    }

    static func json(_ result: BackupRestore.Result) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("generation", .int(Int64(result.generation))), ("lastSegment", .int(Int64(result.lastSegment))),
            ("segmentsRead", .int(Int64(result.segmentsRead))), ("commitsReplayed", .int(Int64(result.transactionsApplied))),
            ("lastToken", .int(result.lastToken)),
            ("lastTime", result.lastClock > 0 ? .string(ISODate.format(HybridClock.date(of: result.lastClock).timeIntervalSince1970)) : .null),
        ]
        if let copy = result.copy {
            fields += [("store", .string(copy.creation.path)), ("rows", .int(Int64(copy.rows))), ("encrypted", .bool(copy.creation.encryption.isEncrypted))]
        }
        return .object(JSONObject(fields))
    }
}
