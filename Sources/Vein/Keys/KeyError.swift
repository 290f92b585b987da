/// Why a key could not be found, read or stored.
public enum KeyError: Error, Equatable, Sendable {
    /// No source gave a key for the store. `keyringProblem` says why the keyring did not help, when it
    /// was tried (service unreachable, or no item for this store).
    case noKeySource(store: String, keyringProblem: String?)
    /// A key file readable by others than its owner.
    case keyFileTooOpen(path: String, mode: UInt16)
    case keyFileUnreadable(path: String, reason: String)
    case keyFileExists(path: String)
    /// `--key-env VAR` named a variable that is not set or is empty.
    case environmentVariableUnset(String)
    case emptyKey
    /// A passphrase with a NUL character, which SQLCipher cannot take.
    case keyContainsNUL
    /// The Secret Service answered with an error (not "no such item").
    case keyringFailed(String)
    /// The keyring holds an item for the store (or is where a new one goes) but is locked, and unlocking
    /// it was refused or impossible (no prompt can be shown).
    case keyringLocked
    /// The Secret Service could not be reached at all.
    case keyringUnavailable(String)
    case passphraseMismatch
    case passphraseUnavailable(String)
}
