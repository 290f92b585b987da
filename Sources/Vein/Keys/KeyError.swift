/// Why a key could not be found, read or stored.
public enum KeyError: Error, Equatable, Sendable {
    /// No source gave a key for the store. `keyringProblem` says why the keyring did not help, when it
    /// was tried (service unreachable, or no item for this store).
    case noKeySource(store: String, keyringProblem: String?)
    /// The keyring holds no current key for the store, only keys a rotation retired; the newest was
    /// retired at `retiredAt` when the store's key moved to `movedTo` (nil when not recorded).
    case keyRetired(store: String, retiredAt: String, movedTo: KeySource?)
    /// The keyring's current key for the store does not open it, but the key it retired for it at `retiredAt`
    /// does: a copy from before that rotation was put back at the path.
    case retiredKeyOpens(store: String, retiredAt: String)
    /// The keyring holds no key for the store's path, but the key it keeps for `otherPath` opens it: the
    /// store was moved or copied from there.
    case keyKeptForAnotherPath(store: String, otherPath: String)
    /// The key file is gone: a rotation moved the store's key elsewhere and kept this one as `retiredAs`.
    case keyFileRetired(path: String, retiredAs: String, retiredAt: String)
    /// A key file readable by others than its owner.
    case keyFileTooOpen(path: String, mode: UInt16)
    case keyFileUnreadable(path: String, reason: String)
    case keyFileExists(path: String)
    /// `--key-env VAR` named a variable that is not set or is empty.
    case environmentVariableUnset(String)
    case emptyKey
    /// A passphrase with a NUL character, which SQLCipher cannot take.
    case keyContainsNUL
    /// Hex digits of the wrong length for a raw key (nil: `x'…'` around something that is not hex).
    case mistypedRawKey(hexDigits: Int?)
    /// A new store's passphrase shorter than `CipherKey.minimumPassphraseLength`, without `--weak-passphrase`.
    case weakPassphrase(characters: Int)
    /// One of the problems above, with the source whose key has it.
    indirect case unusableKey(source: KeySource, problem: KeyError)
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

extension KeyError {
    /// Whether the error is about the key's text (and so worth naming the source that gave it).
    var isAboutTheKeyText: Bool {
        switch self {
        case .emptyKey, .keyContainsNUL, .mistypedRawKey, .weakPassphrase: return true
        default: return false
        }
    }

    /// Runs `body`, naming `source` in a problem with the key's text.
    static func attributing<T>(to source: KeySource, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as KeyError where error.isAboutTheKeyText {
            throw KeyError.unusableKey(source: source, problem: error)
        }
    }
}

extension KeyError: CustomStringConvertible {
    public var description: String { description(naming: "the key") }

    /// The message, calling the key `theKey` ("the key", or the phrase of the source that gave it).
    private func description(naming theKey: String) -> String {
        switch self {
        case .unusableKey(let source, let problem): return problem.description(naming: source.phrase)
        case .mistypedRawKey(let digits):
            return theKey + (digits.map { " looks like a raw key with \($0) hex digits (a raw key has 64)" }
                             ?? " is written as a raw key (x'…') but is not 64 hex digits")
        case .weakPassphrase(let characters):
            return "\(theKey) has \(characters) character\(characters == 1 ? "" : "s"); "
                + "a new store's passphrase needs at least \(CipherKey.minimumPassphraseLength)"
        case .noKeySource(let store, let problem): return "no key for \(store)" + (problem.map { " (\($0))" } ?? "")
        case .keyRetired(let store, let retiredAt, let movedTo):
            let place: String? = switch movedTo {
            case .passphrasePrompt: "a passphrase"
            case .keyFile(let path): "key file \(path)"
            case .keyring: "a new key in the keyring, which no longer holds it"
            default: nil
            }
            return "no key for \(store): the keyring's key for this store was retired on \(retiredAt)"
                + (place.map { " when it moved to \($0)" } ?? "")
        case .retiredKeyOpens(let store, let retiredAt):
            return "cannot decrypt \(store) with the key in the keyring, but the key the keyring retired for it on \(retiredAt) "
                + "opens it (it is a copy from before that rotation)"
        case .keyKeptForAnotherPath(let store, let other):
            return "no key for \(store): the keyring has no key for this path, but the key it keeps for \(other) opens it "
                + "(the store was moved or copied from there)"
        case .keyFileRetired(let path, let retiredAs, let retiredAt):
            return "key file \(path) was retired on \(retiredAt), when the store's key moved elsewhere; \(retiredAs) keeps the old key"
        case .keyFileTooOpen(let path, let mode): return "key file \(path) is accessible by others (mode \(String(mode, radix: 8)))"
        case .keyFileUnreadable(let path, let reason): return "cannot read key file \(path): \(reason)"
        case .keyFileExists(let path): return "key file \(path) already exists"
        case .environmentVariableUnset(let name): return "environment variable \(name) is not set or empty"
        case .emptyKey: return "\(theKey) is empty"
        case .keyContainsNUL: return "\(theKey) contains a NUL character, which SQLCipher cannot use"
        case .keyringFailed(let reason): return "the keyring failed: \(reason)"
        case .keyringLocked: return "the keyring is locked"
        case .keyringUnavailable(let reason): return "the Secret Service is not available: \(reason)"
        case .passphraseMismatch: return "the passphrases do not match"
        case .passphraseUnavailable(let reason): return "cannot read a passphrase: \(reason)"
        }
    }
}
