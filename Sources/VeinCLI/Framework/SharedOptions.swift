import Foundation
import Vein

/// Options several commands share, described once.
enum SharedOptions {
    static let keyFile = OptionSpec("key-file", value: "FILE",
        help: "Read the key from FILE (64 hex digits for a raw key, anything else is a passphrase; surrounding whitespace is ignored). FILE must be mode 0600 or stricter.",
        completion: .file)
    static let keyEnv = OptionSpec("key-env", value: "VAR", help: "Read the key from the environment variable VAR.")
    static let passphrase = OptionSpec("passphrase",
        help: "Use a passphrase: asked without echo on a terminal, otherwise read as one line from standard input.")
    static let keyOptions = [keyFile, keyEnv, passphrase]
    /// For commands that give a store a new key (create, import --create, encrypt, key rotate).
    static let weakPassphrase = OptionSpec("weak-passphrase",
        help: "Accept a new passphrase shorter than 12 characters.")

    static let json = OptionSpec("json", help: "Print the result as JSON.")
    static let quiet = OptionSpec("quiet", short: "q", help: "Print nothing but errors (and the result).")

    static let storeArgument = ArgumentSpec("STORE", help: "The store file.", completion: .file)

    /// Key sources from the command line and environment (docs/keys.md), with the terminal prompt for
    /// `--passphrase`.
    static func keyOptions(_ invocation: Invocation) -> KeyOptions {
        KeyOptions(keyFile: invocation.arguments.value("key-file"),
                   keyEnv: invocation.arguments.value("key-env"),
                   passphrase: invocation.arguments.flag("passphrase"),
                   readPassphrase: { confirm in try PassphrasePrompt.read(confirm: confirm) },
                   environment: invocation.environment,
                   keyring: SecretServiceKeyring(),
                   allowWeakPassphrase: invocation.arguments.flag("weak-passphrase"))
    }

    /// What a command on `store` must not write over: the store, its -wal, -shm and -journal, and its key
    /// files (WriteGuard).
    static func writeGuard(_ invocation: Invocation, _ store: Store) -> WriteGuard {
        WriteGuard(protecting: store, keyFile: invocation.arguments.value("key-file"))
    }

    /// Opens the store named by the STORE argument with the invocation's key sources. A command that only
    /// reads opens it `.readOnly`: it then works on a store it may not write, and leaves no -wal or -shm.
    static func openStore(_ invocation: Invocation, mode: Database.OpenMode = .readWrite) throws -> Store {
        try Store.open(invocation.required("STORE"), keys: keyOptions(invocation), mode: mode)
    }
}
