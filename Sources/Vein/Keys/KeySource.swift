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

/// The key sources a command was given (docs/keys.md). First match wins: `--key-file`, `--key-env`,
/// `--passphrase`, then `VEIN_KEY` (explicit options beat the environment), then the keyring. Keys never
/// come from the command line itself.
public struct KeyOptions: Sendable {
    public var keyFile: String?
    public var keyEnv: String?
    public var passphrase = false
    /// Asks for a passphrase; `confirm` asks twice (new stores). Supplied by the front end.
    public var readPassphrase: (@Sendable (_ confirm: Bool) throws -> String)?
    public var environment: [String: String]
    public var keyring: (any Keyring)?
    /// `--weak-passphrase`: a new store (or a rotation) may take a passphrase shorter than 12 characters.
    public var allowWeakPassphrase = false

    public static let environmentVariable = "VEIN_KEY"

    public init(keyFile: String? = nil, keyEnv: String? = nil, passphrase: Bool = false,
                readPassphrase: (@Sendable (Bool) throws -> String)? = nil,
                environment: [String: String] = ProcessInfo.processInfo.environment,
                keyring: (any Keyring)? = SecretServiceKeyring(), allowWeakPassphrase: Bool = false) {
        self.keyFile = keyFile
        self.keyEnv = keyEnv
        self.passphrase = passphrase
        self.readPassphrase = readPassphrase
        self.environment = environment
        self.keyring = keyring
        self.allowWeakPassphrase = allowWeakPassphrase
    }

    /// The key from an explicit source (everything but the keyring), or nil when none was given.
    /// `confirmPassphrase` asks twice (a new store's passphrase).
    func explicitKey(confirmPassphrase: Bool = false) throws -> (CipherKey, KeySource)? {
        // Before a passphrase is typed or a key file read: the key is in memory from then on.
        KeyMemory.keepOutOfCoreDumps()
        if let keyFile {
            KeyFile.removeLeftovers(of: keyFile)
            let source = KeySource.keyFile(keyFile)
            return (try KeyError.attributing(to: source) { try KeyFile.read(keyFile) }, source)
        }
        if let keyEnv {
            guard let text = environment[keyEnv], !text.isEmpty else { throw KeyError.environmentVariableUnset(keyEnv) }
            let source = KeySource.environment(keyEnv)
            return (try KeyError.attributing(to: source) { try CipherKey(text: text) }, source)
        }
        if passphrase {
            guard let readPassphrase else { throw KeyError.passphraseUnavailable("no way to ask for a passphrase here") }
            let text = try readPassphrase(confirmPassphrase)
            return (try KeyError.attributing(to: .passphrasePrompt) { try CipherKey(text: text) }, .passphrasePrompt)
        }
        if let text = environment[KeyOptions.environmentVariable], !text.isEmpty {
            let source = KeySource.environment(KeyOptions.environmentVariable)
            return (try KeyError.attributing(to: source) { try CipherKey(text: text) }, source)
        }
        return nil
    }

    /// The key that opens an existing encrypted store at `realPath`.
    public func keyForOpening(realPath: String) throws -> (CipherKey, KeySource) {
        if let explicit = try explicitKey() { return explicit }
        guard let keyring else { throw KeyError.noKeySource(store: realPath, keyringProblem: "no keyring configured") }
        do throws(KeyError) {
            if let key = try keyring.lookup(storePath: realPath, state: .current) { return (key, .keyring) }
            // A rotation in the keyring retires the old item before it promotes the new one: stopped between
            // the two, only the pending key opens the store.
            if let key = try keyring.lookup(storePath: realPath, state: .pending) { return (key, .keyring) }
            if let retired = try keyring.retiredKeys(storePath: realPath).last {
                throw KeyError.keyRetired(store: realPath, retiredAt: retired.retiredAt, movedTo: retired.movedTo)
            }
            if let other = try keyring.pathWhoseKeyOpens(realPath) {
                throw KeyError.keyKeptForAnotherPath(store: realPath, otherPath: other)
            }
        } catch .keyringUnavailable(let reason) {
            throw KeyError.noKeySource(store: realPath, keyringProblem: "the Secret Service is not available: \(reason)")
        }
        throw KeyError.noKeySource(store: realPath, keyringProblem: "the keyring has no key for this store")
    }

    /// The key a rotation recorded before it changed the store (docs/keys.md): a key file's `FILE.pending`, or the
    /// keyring's `state=pending` item. Tried when the current key no longer opens the store, which happens
    /// only after a rotation replaced the file and stopped before promoting the key. A pending key that
    /// exists but cannot be read (a key file others can read, a locked keyring) is an error, not "none":
    /// it may be the only key that opens the store.
    public func pendingKey(realPath: String) throws -> (CipherKey, KeySource)? {
        if let keyFile {
            let pending = KeyFile.pendingPath(for: keyFile)
            guard FileSystem.fileExists(pending) else { return nil }
            return (try KeyError.attributing(to: .keyFile(pending)) { try KeyFile.read(pending) }, .keyFile(pending))
        }
        if keyEnv != nil || environment[KeyOptions.environmentVariable].map({ !$0.isEmpty }) == true || passphrase { return nil }
        return try keyring?.lookup(storePath: realPath, state: .pending).map { ($0, .keyring) }
    }
}

extension KeySource {
    /// How a message names the key a source gave: "the key from key file k.key", "the passphrase given".
    public var phrase: String {
        switch self {
        case .passphrasePrompt: return "the passphrase given"
        case .keyring: return "the key in the keyring"
        default: return "the key from \(self)"
        }
    }
}
