import Foundation
import Vein

/// Options several commands share, described once.
enum SharedOptions {
    static let keyFile: OptionKey<String?> = .value("key-file", value: "FILE",
        help: "Read the key from FILE (64 hex digits for a raw key, anything else is a passphrase; surrounding whitespace is ignored). FILE must be mode 0600 or stricter.",
        completion: .file)
    static let keyEnv: OptionKey<String?> = .value("key-env", value: "VAR", help: "Read the key from the environment variable VAR.")
    static let passphrase: OptionKey<Bool> = .flag("passphrase",
        help: "Use a passphrase: asked without echo on a terminal, otherwise read as one line from standard input.")
    static let keyOptions: [any CommandDeclaration<OptionSpec>] = [keyFile, keyEnv, passphrase]
    /// For commands that give a store a new key (create, import --create, encrypt, key rotate).
    static let weakPassphrase: OptionKey<Bool> = .flag("weak-passphrase",
        help: "Accept a new passphrase shorter than 12 characters.")

    static let json: OptionKey<Bool> = .flag("json", help: "Print the result as JSON.")
    static let quiet: OptionKey<Bool> = .flag("quiet", short: "q", help: "Print nothing but errors (and the result).")
    /// Every command takes it (`CommandSpec.allOptions`).
    static let help: OptionKey<Bool> = .flag("help", short: "h", help: "Show help for this command.")

    static let store: ArgumentKey<String> = .required("STORE", help: "The store file.", completion: .file)

    /// Key sources from the command line and environment (docs/keys.md), with the terminal prompt for
    /// `--passphrase`.
    static func keyOptions(_ invocation: Invocation) -> KeyOptions {
        KeyOptions(keyFile: invocation[keyFile],
                   keyEnv: invocation[keyEnv],
                   passphrase: invocation[passphrase],
                   readPassphrase: { confirm in try PassphrasePrompt.read(confirm: confirm) },
                   environment: invocation.environment,
                   keyring: SecretServiceKeyring(),
                   allowWeakPassphrase: invocation[weakPassphrase])
    }

    /// What a command on `store` must not write over: the store, its -wal, -shm and -journal, and its key
    /// files (WriteGuard).
    static func writeGuard(_ invocation: Invocation, _ store: Store) -> WriteGuard {
        WriteGuard(protecting: store, keyFile: invocation[keyFile])
    }

    /// Opens the store named by the STORE argument with the invocation's key sources. A command that only
    /// reads opens it `.readOnly`: it then works on a store it may not write, and leaves no -wal or -shm.
    /// Its change log (when it keeps one) names the command as the author of what it commits.
    static func openStore(_ invocation: Invocation, mode: Database.OpenMode = .readWrite) throws -> Store {
        let store = try Store.open(invocation[store], keys: keyOptions(invocation), mode: mode)
        store.changeAuthor = "vein \(invocation.commandPath)"
        return store
    }
}
