import Foundation
import Vein

enum KeyCommand {
    static let spec: CommandSpec = CommandSpec(
        name: "key",
        abstract: "Rotate a store's key, show how it is keyed, or forget its retired keys",
        discussion: "Subcommands: 'vein key rotate STORE', 'vein key status STORE' and 'vein key forget STORE'.",
        subcommands: [KeyRotateCommand.spec, KeyStatusCommand.spec, KeyForgetCommand.spec])
}

enum KeyRotateCommand {
    static let toKeyring: OptionKey<Bool> = .flag("to-keyring", help: "Keep the new key in the Secret Service keyring.")
    static let toKeyFile: OptionKey<String?> = .value("to-key-file", value: "FILE", help: "Write the new key to FILE (mode 0600).", completion: .file)
    static let force: OptionKey<Bool> = .flag("force", help: "With --to-key-file: replace FILE if it exists.")
    static let toPassphrase: OptionKey<Bool> = .flag("to-passphrase", help: "Use a new passphrase (asked twice) instead of a random key.")

    static let spec: CommandSpec = CommandSpec(
        name: "rotate",
        abstract: "Re-encrypt a store under a fresh key, crash-safely",
        discussion: """
            Makes a fresh random 256-bit key (or takes a new passphrase with --to-passphrase), copies the \
            store under it with sqlcipher_export into a new file next to it, checks and syncs the copy, and \
            renames it over the store. PRAGMA rekey is not used: SQLCipher 3.4.1 refuses it on WAL stores, and \
            rewriting pages in place could leave a half-rekeyed file after a crash. rename(2) is atomic, so \
            the path always holds a whole store under the old key or under the new one. The new file keeps \
            the store's mode, owner and group; without room for the copy (exit 74) the store is left as it was.

            The new key is recorded as pending before the store changes (a key file's FILE.pending, or the \
            keyring's item with state=pending), tried whenever the current key does not open the store (or the \
            keyring has none), and promoted to current after the rename. A crash at any point leaves a store \
            that the keys in its source open (after a move to a new key file stopped after the rename, \
            --key-file FILE finds FILE.pending). A failure after the rename (exit 74) says so: the store has its \
            new key, which stays pending until the next rotation makes it current; keep it.

            The old key is retired, never deleted: copies and backups made before the rotation open only with \
            it. In the keyring its item gets state=retired (with the date and where the key went), which \
            lookups skip; a key file keeps it as FILE.retired-DATE beside it (a second name when FILE gets the \
            new key, a rename when the key moved to another source). A key moving out of the keyring is \
            marked (moved-to) before the store changes, so that a rotation killed before the retirement is \
            finished by the next command that finds that key no longer opening the store. 'vein key status' \
            lists retired keys, 'vein key forget --purge' deletes the keyring's.

            The new key goes where the current one is (its key file or keyring item), or with --to-keyring, \
            --to-key-file FILE (written 0600; an existing FILE only with --force; neither FILE nor FILE.pending \
            may be the store or its -wal, -shm or -journal, however named: exit 73) or --to-passphrase (asked \
            twice) to another source. A key from an environment variable or a typed passphrase cannot be \
            replaced in place: name a destination. Refused with exit 75 while another process has the store \
            open (it would go on writing to the old file). A new passphrase shorter than 12 characters is \
            refused unless --weak-passphrase is given.
            """,
        arguments: [SharedOptions.store],
        options: [toKeyring, toKeyFile, force, toPassphrase, SharedOptions.json, SharedOptions.quiet] + SharedOptions.keyOptions + [SharedOptions.weakPassphrase],
        examples: [
            ("vein key rotate blog.vein", "A new key, kept where the current one is."),
            ("vein key rotate blog.vein --key-env OLD_KEY --to-keyring", "Move a store from an environment key to the keyring."),
            ("vein key rotate blog.vein --to-key-file ci.key", "A new key in a key file, for CI."),
        ],
        run: run)

    static func run(_ invocation: Invocation) throws {
        let chosen = [invocation[toKeyring], invocation[toKeyFile] != nil, invocation[toPassphrase]].filter { $0 }.count
        guard chosen <= 1 else {
            throw UsageError(message: "choose one of --to-keyring, --to-key-file and --to-passphrase", command: invocation.commandPath)
        }
        if invocation[force] && invocation[toKeyFile] == nil {
            throw UsageError(message: "--force goes with --to-key-file", command: invocation.commandPath)
        }
        let destination: KeyRotation.Destination
        if invocation[toKeyring] {
            destination = .keyring
        } else if let file = invocation[toKeyFile] {
            destination = .keyFile(file, force: invocation[force])
        } else if invocation[toPassphrase] {
            destination = .passphrase(try PassphrasePrompt.read(confirm: true))
        } else {
            destination = .sameSource
        }
        let result = try KeyRotation.rotate(invocation[SharedOptions.store], keys: SharedOptions.keyOptions(invocation), to: destination,
                                            after: TestHooks.rotationStop(invocation.environment))
        if invocation.wantsJSON {
            invocation.console.outJSON(.object(JSONObject([
                ("store", .string(invocation[SharedOptions.store])), ("keySource", .string(result.destination.kind)),
                ("bytes", .int(Int64(result.bytes))), ("durationSeconds", .double(result.durationSeconds)),
            ])))
        } else if !invocation.quiet {
            let place = result.destination == .passphrasePrompt ? "it now opens with the new passphrase" : "the new key is in the \(result.destination)"
            invocation.console.note("rotated the key of \(invocation[SharedOptions.store]); \(place)")
        }
    }
}

enum KeyStatusCommand {
    static let spec: CommandSpec = CommandSpec(
        name: "status",
        abstract: "Show which source opens a store, its cipher settings, and any pending or retired keys",
        discussion: """
            Never prints the key. A pending key means a rotation recorded a new key and has not finished. Retired \
            keys are the ones rotations replaced: the keyring's items for this store (with when, and where the \
            key went) and FILE.retired-DATE files beside the key file given.
            """,
        arguments: [SharedOptions.store],
        options: [SharedOptions.json] + SharedOptions.keyOptions,
        examples: [("vein key status blog.vein", "How the store is keyed.")],
        run: run)

    static func run(_ invocation: Invocation) throws {
        let status = try KeyStatus.of(invocation[SharedOptions.store], keys: SharedOptions.keyOptions(invocation))
        let console = invocation.console
        if invocation.wantsJSON {
            var fields: [(String, JSONValue)] = [
                ("store", .string(invocation[SharedOptions.store])), ("keySource", .string(status.source.kind)),
                ("source", .string(status.source.description)), ("key", .string(status.keyKind)),
                ("cipherVersion", .string(status.cipherVersion)), ("cipher", .string(status.cipher)),
                ("pageSize", .int(Int64(status.pageSize))), ("pendingKey", .bool(status.pendingKey)),
            ]
            if let iterations = status.kdfIterations { fields.append(("kdfIterations", .int(Int64(iterations)))) }
            fields.append(("retiredKeys", .array(status.retiredKeys.map(Self.json))))
            if let unknown = status.retiredKeysUnknown { fields.append(("retiredKeysUnknown", .string(unknown))) }
            console.outJSON(.object(JSONObject(fields)))
        } else {
            console.out("source       \(status.source)")
            console.out("key          \(status.keyKind)")
            console.out("cipher       SQLCipher \(status.cipherVersion), \(status.cipher), \(status.pageSize)-byte pages"
                        + (status.kdfIterations.map { ", PBKDF2 \($0) iterations" } ?? ""))
            console.out("pending key  \(status.pendingKey ? "yes (a rotation did not finish; the next open or rotate uses it)" : "none")")
            if let unknown = status.retiredKeysUnknown {
                console.out("retired keys not listed from the keyring: \(unknown)")
            } else if status.retiredKeys.isEmpty {
                console.out("retired keys none")
            }
            if !status.retiredKeys.isEmpty {
                if status.retiredKeysUnknown == nil { console.out("retired keys \(status.retiredKeys.count)") }
                for key in status.retiredKeys { console.out("  " + Self.describe(key)) }
            }
        }
    }

    /// "keyring item, retired 2026-…, when the key moved to a passphrase"; "key file k.retired-…, retired 2026-…".
    static func describe(_ key: RetiredKey) -> String {
        switch key.place {
        case .keyring: return "keyring item, retired \(key.retiredAt)" + (key.movedTo.map { ", when the key moved to the \($0)" } ?? "")
        case .keyFile(let path): return "key file \(path), retired \(key.retiredAt)"
        }
    }

    static func json(_ key: RetiredKey) -> JSONValue {
        switch key.place {
        case .keyring:
            var fields: [(String, JSONValue)] = [("place", .string("keyring")), ("retiredAt", .string(key.retiredAt)),
                                                 ("movedTo", key.movedTo.map { .string($0.kind) } ?? .null)]
            if case .keyFile(let path) = key.movedTo { fields.append(("movedToKeyFile", .string(path))) }
            return .object(JSONObject(fields))
        case .keyFile(let path):
            return .object(JSONObject([("place", .string("key-file")), ("path", .string(path)), ("retiredAt", .string(key.retiredAt))]))
        }
    }
}

enum KeyForgetCommand {
    static let purge: OptionKey<Bool> = .flag("purge", help: "Delete the retired keys, even those that are the only key of a recorded backup.")

    static let spec: CommandSpec = CommandSpec(
        name: "forget",
        abstract: "Delete a store's retired keys from the keyring",
        discussion: """
            Deletes the keyring items that rotations retired for STORE (see 'vein key status'), and vein's \
            records of the backups made with them. A retired key opens the copies of the store made before its \
            rotation, so nothing is deleted without --purge: without it vein lists each retired key and the \
            backups that only it opens, and exits 64. Those are the backups 'vein backup' recorded with that key \
            whose own keyring item is gone or holds another key; copies made otherwise (cp, snapshots) are not \
            known to vein. A retired key that opens the file at STORE as it is now (a copy from before its \
            rotation was put back) is never deleted. Needs no key: STORE may even be gone. Retired key files \
            (FILE.retired-DATE) are not touched; remove them yourself when nothing needs them.
            """,
        arguments: [SharedOptions.store],
        options: [purge, SharedOptions.quiet],
        examples: [("vein key forget blog.vein", "List the retired keys and the backups only they open; delete nothing."),
                   ("vein key forget blog.vein --purge", "Delete them.")],
        run: run)

    static func run(_ invocation: Invocation) throws {
        let path = invocation[SharedOptions.store]
        let realPath = try FileSystem.realPath(path)
        let keyring = SharedOptions.keyOptions(invocation).keyring ?? SecretServiceKeyring()
        let entries = try RetiredKeyDeletion.entries(storePath: realPath, keyring: keyring)
        let console = invocation.console
        guard !entries.isEmpty else {
            if !invocation.quiet { console.note("\(path) has no retired keys in the keyring") }
            return
        }
        let lines = entries.flatMap { Self.describe($0, store: path) }
        let deletable = entries.filter { !$0.opensTheStore }.count
        guard deletable > 0 else {
            if !invocation.quiet { console.note((["\(path) has no retired key to delete"] + lines).joined(separator: "\n")) }
            return
        }
        let count = deletable == 1 ? "1 retired key" : "\(deletable) retired keys"
        guard invocation[purge] else {
            throw CommandFailure((["deleting \(count) of \(path) needs --purge"] + lines).joined(separator: "\n"),
                                 hint: "a retired key also opens the copies of the store made before its rotation; "
                                     + "'vein key forget \(path) --purge' deletes them for good", exitCode: .usage)
        }
        let deleted = try RetiredKeyDeletion.delete(entries, storePath: realPath, keyring: keyring)
        let orphaned = entries.filter { !$0.opensTheStore }.flatMap(\.onlyKeyOf)
        if !invocation.quiet {
            console.note("deleted \(deleted == 1 ? "1 retired key" : "\(deleted) retired keys") of \(path)")
            let kept = entries.count - deletable
            if kept > 0 { console.note("kept \(kept == 1 ? "1 retired key" : "\(kept) retired keys") that \(kept == 1 ? "opens" : "open") \(path) as it is now") }
            if !orphaned.isEmpty {
                console.note("no key vein knows opens these backups any more: " + orphaned.map(\.backup).joined(separator: ", "))
            }
        }
    }

    /// A retired key and the backups only it opens, as lines under the refusal.
    static func describe(_ entry: RetiredKeyDeletion.Entry, store: String) -> [String] {
        let backups = entry.onlyKeyOf
        let use = entry.opensTheStore
            ? "kept: it opens \(store) as it is now (a copy from before its rotation)"
            : backups.isEmpty ? "no recorded backup needs it" : "the only key of \(backups.count == 1 ? "1 backup" : "\(backups.count) backups")"
        var lines = ["  " + KeyStatusCommand.describe(entry.key) + ": " + use]
        lines += backups.map { "    \($0.backup), made \($0.created)" }
        let others = entry.alsoOpenedByTheirOwnKey.count
        if others > 0 { lines.append("    (\(others == 1 ? "1 more backup" : "\(others) more backups") made with it \(others == 1 ? "keeps its" : "keep their") own keyring key)") }
        return lines
    }
}
