import Foundation

/// Where a store's key came from (shown by `vein info`, never the key itself).
public enum KeySource: Equatable, Sendable, CustomStringConvertible {
    case keyFile(String)
    case environment(String)
    case passphrasePrompt
    case keyring
    /// A plaintext store needs no key.
    case none

    public var description: String {
        switch self {
        case .keyFile(let path): return "key file \(path)"
        case .environment(let name): return "environment variable \(name)"
        case .passphrasePrompt: return "passphrase"
        case .keyring: return "keyring"
        case .none: return "none (plaintext)"
        }
    }

    /// A short stable name for `--json` output.
    public var kind: String {
        switch self {
        case .keyFile: return "key-file"
        case .environment: return "environment"
        case .passphrasePrompt: return "passphrase"
        case .keyring: return "keyring"
        case .none: return "none"
        }
    }
}

/// The key sources a command was given (SPEC §6). First match wins: `--key-file`, `--key-env`, `VEIN_KEY`,
/// `--passphrase`, then the keyring. Keys never come from the command line itself.
public struct KeyOptions: Sendable {
    public var keyFile: String?
    public var keyEnv: String?
    public var passphrase = false
    /// Asks for a passphrase; `confirm` asks twice (new stores). Supplied by the front end.
    public var readPassphrase: (@Sendable (_ confirm: Bool) throws -> String)?
    public var environment: [String: String]
    public var keyring: (any Keyring)?

    public static let environmentVariable = "VEIN_KEY"

    public init(keyFile: String? = nil, keyEnv: String? = nil, passphrase: Bool = false,
                readPassphrase: (@Sendable (Bool) throws -> String)? = nil,
                environment: [String: String] = ProcessInfo.processInfo.environment,
                keyring: (any Keyring)? = SecretServiceKeyring()) {
        self.keyFile = keyFile
        self.keyEnv = keyEnv
        self.passphrase = passphrase
        self.readPassphrase = readPassphrase
        self.environment = environment
        self.keyring = keyring
    }

    /// The key from an explicit source (everything but the keyring), or nil when none was given.
    /// `confirmPassphrase` asks twice (a new store's passphrase).
    func explicitKey(confirmPassphrase: Bool = false) throws -> (CipherKey, KeySource)? {
        if let keyFile {
            return (try KeyFile.read(keyFile), .keyFile(keyFile))
        }
        if let keyEnv {
            guard let text = environment[keyEnv], !text.isEmpty else { throw KeyError.environmentVariableUnset(keyEnv) }
            return (try CipherKey(text: text), .environment(keyEnv))
        }
        if let text = environment[KeyOptions.environmentVariable], !text.isEmpty {
            return (try CipherKey(text: text), .environment(KeyOptions.environmentVariable))
        }
        if passphrase {
            guard let readPassphrase else { throw KeyError.passphraseUnavailable("no way to ask for a passphrase here") }
            return (try CipherKey(text: try readPassphrase(confirmPassphrase)), .passphrasePrompt)
        }
        return nil
    }

    /// The key that opens an existing encrypted store at `realPath`.
    public func keyForOpening(realPath: String) throws -> (CipherKey, KeySource) {
        if let explicit = try explicitKey() { return explicit }
        guard let keyring else { throw KeyError.noKeySource(store: realPath, keyringProblem: "no keyring configured") }
        do {
            if let key = try keyring.lookup(storePath: realPath, state: .current) { return (key, .keyring) }
        } catch .keyringUnavailable(let reason) {
            throw KeyError.noKeySource(store: realPath, keyringProblem: "the Secret Service is not available: \(reason)")
        }
        throw KeyError.noKeySource(store: realPath, keyringProblem: "the keyring has no key for this store")
    }

    /// The key a rotation recorded before it changed the store (SPEC §6): a key file's `FILE.pending`, or the
    /// keyring's `state=pending` item. Tried when the current key no longer opens the store, which happens
    /// only after a rotation replaced the file and stopped before promoting the key.
    public func pendingKey(realPath: String) -> (CipherKey, KeySource)? {
        if let keyFile {
            let pending = KeyFile.pendingPath(for: keyFile)
            return FileSystem.fileExists(pending) ? (try? KeyFile.read(pending)).map { ($0, .keyFile(pending)) } : nil
        }
        if keyEnv != nil || environment[KeyOptions.environmentVariable].map({ !$0.isEmpty }) == true || passphrase { return nil }
        return (try? keyring?.lookup(storePath: realPath, state: .pending))?.flatMap { $0 }.map { ($0, .keyring) }
    }
}
