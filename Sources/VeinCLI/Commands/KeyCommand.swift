import Foundation
import Vein

enum KeyCommand {
    static let spec: CommandSpec = CommandSpec(
        name: "key",
        abstract: "Rotate a store's key, or show how it is keyed",
        discussion: "Subcommands: 'vein key rotate STORE' and 'vein key status STORE'.",
        subcommands: [KeyRotateCommand.spec, KeyStatusCommand.spec])
}

enum KeyRotateCommand {
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
            that the keys in its source open. A failure after the rename (exit 74) says so: the store has its \
            new key, which stays pending until the next rotation makes it current; keep it.

            The new key goes where the current one is (its key file or keyring item), or with --to-keyring, \
            --to-key-file FILE (written 0600; an existing FILE only with --force) or --to-passphrase (asked \
            twice) to another source. A key from an environment variable or a typed passphrase cannot be \
            replaced in place: name a destination. Refused with exit 75 while another process has the store \
            open (it would go on writing to the old file). A new passphrase shorter than 12 characters is \
            refused unless --weak-passphrase is given.
            """,
        arguments: [SharedOptions.storeArgument],
        options: [
            OptionSpec("to-keyring", help: "Keep the new key in the Secret Service keyring."),
            OptionSpec("to-key-file", value: "FILE", help: "Write the new key to FILE (mode 0600).", completion: .file),
            OptionSpec("force", help: "With --to-key-file: replace FILE if it exists."),
            OptionSpec("to-passphrase", help: "Use a new passphrase (asked twice) instead of a random key."),
            SharedOptions.json, SharedOptions.quiet,
        ] + SharedOptions.keyOptions + [SharedOptions.weakPassphrase],
        examples: [
            ("vein key rotate blog.vein", "A new key, kept where the current one is."),
            ("vein key rotate blog.vein --key-env OLD_KEY --to-keyring", "Move a store from an environment key to the keyring."),
            ("vein key rotate blog.vein --to-key-file ci.key", "A new key in a key file, for CI."),
        ],
        run: run)

    static func run(_ invocation: Invocation) throws {
        let args = invocation.arguments
        let chosen = [args.flag("to-keyring"), args.value("to-key-file") != nil, args.flag("to-passphrase")].filter { $0 }.count
        guard chosen <= 1 else {
            throw UsageError(message: "choose one of --to-keyring, --to-key-file and --to-passphrase", command: invocation.commandPath)
        }
        if args.flag("force") && args.value("to-key-file") == nil {
            throw UsageError(message: "--force goes with --to-key-file", command: invocation.commandPath)
        }
        let destination: KeyRotation.Destination
        if args.flag("to-keyring") {
            destination = .keyring
        } else if let file = args.value("to-key-file") {
            destination = .keyFile(file, force: args.flag("force"))
        } else if args.flag("to-passphrase") {
            destination = .passphrase(try PassphrasePrompt.read(confirm: true))
        } else {
            destination = .sameSource
        }
        let result = try KeyRotation.rotate(invocation.required("STORE"), keys: SharedOptions.keyOptions(invocation), to: destination,
                                            after: Self.testStop(invocation.environment))
        if invocation.wantsJSON {
            invocation.console.outJSON(.object(JSONObject([
                ("store", .string(invocation.required("STORE"))), ("keySource", .string(result.destination.kind)),
                ("bytes", .int(Int64(result.bytes))), ("durationSeconds", .double(result.durationSeconds)),
            ])))
        } else if !invocation.quiet {
            let place = result.destination == .passphrasePrompt ? "it now opens with the new passphrase" : "the new key is in the \(result.destination)"
            invocation.console.note("rotated the key of \(invocation.required("STORE")); \(place)")
        }
    }

    /// Crash tests set VEIN_TEST_ROTATE_STOP=step to make the process stop itself (SIGKILL) there.
    static func testStop(_ environment: [String: String]) -> (@Sendable (KeyRotation.Step) -> Void)? {
        guard let stop = environment["VEIN_TEST_ROTATE_STOP"].flatMap(KeyRotation.Step.init(rawValue:)) else { return nil }
        return { step in if step == stop { kill(getpid(), SIGKILL) } }
    }
}

enum KeyStatusCommand {
    static let spec: CommandSpec = CommandSpec(
        name: "status",
        abstract: "Show which source opens a store, its cipher settings, and any pending key",
        discussion: "Never prints the key. A pending key means a rotation recorded a new key and has not finished.",
        arguments: [SharedOptions.storeArgument],
        options: [SharedOptions.json] + SharedOptions.keyOptions,
        examples: [("vein key status blog.vein", "How the store is keyed.")],
        run: run)

    static func run(_ invocation: Invocation) throws {
        let status = try KeyStatus.of(invocation.required("STORE"), keys: SharedOptions.keyOptions(invocation))
        let console = invocation.console
        if invocation.wantsJSON {
            var fields: [(String, JSONValue)] = [
                ("store", .string(invocation.required("STORE"))), ("keySource", .string(status.source.kind)),
                ("source", .string(status.source.description)), ("key", .string(status.keyKind)),
                ("cipherVersion", .string(status.cipherVersion)), ("cipher", .string(status.cipher)),
                ("pageSize", .int(Int64(status.pageSize))), ("pendingKey", .bool(status.pendingKey)),
            ]
            if let iterations = status.kdfIterations { fields.append(("kdfIterations", .int(Int64(iterations)))) }
            console.outJSON(.object(JSONObject(fields)))
        } else {
            console.out("source       \(status.source)")
            console.out("key          \(status.keyKind)")
            console.out("cipher       SQLCipher \(status.cipherVersion), \(status.cipher), \(status.pageSize)-byte pages"
                        + (status.kdfIterations.map { ", PBKDF2 \($0) iterations" } ?? ""))
            console.out("pending key  \(status.pendingKey ? "yes (a rotation did not finish; the next open or rotate uses it)" : "none")")
        }
    }
}
