import CVeinFaultVFS
import Foundation
import Synchronization
import Vein

/// An in-memory Secret Service for the fault-injection loop: each lookup, store and removal asks the test
/// VFS's counter first (as Vein's file calls do), so the loop fails them in turn, and drops changes after a
/// power loss. One keyring per run directory, filled from the key file the scenario's store was made with.
final class FaultKeyring: Keyring {
    private let items = Mutex<[String: CipherKey]>([:])

    private static let byDirectory = Mutex<[String: FaultKeyring]>([:])

    /// The keyring of a run directory: on first use it holds `s.key`'s key for `s.vein`, as the keyring
    /// of a store made with the default key source would.
    static func of(_ directory: String) -> FaultKeyring {
        byDirectory.withLock { keyrings in
            if let keyring = keyrings[directory] { return keyring }
            let keyring = FaultKeyring()
            if let key = try? KeyFile.read(directory + "/s.key") {
                keyring.items.withLock { $0[Self.name(directory + "/s.vein", .current)] = key }
            }
            keyrings[directory] = keyring
            return keyring
        }
    }

    /// Forgets the keyrings of directories under `root` (a finished loop's).
    static func forget(under root: String) {
        byDirectory.withLock { keyrings in keyrings = keyrings.filter { !$0.key.hasPrefix(root + "/") } }
    }

    private static func name(_ storePath: String, _ state: KeyState) -> String { "\(state.rawValue) \(storePath)" }

    /// What the keyring holds, by state and store name (never the keys): part of a scenario's state.
    var summary: String {
        items.withLock { items in
            items.keys.map { $0.split(separator: "/").last.map { "\($0)" } ?? $0 }.sorted().joined(separator: ", ")
        }
    }

    /// The counter's decision for one call; a failure is what libsecret reports for a broken connection.
    private func ask(_ call: vein_file_call, _ storePath: String) throws(KeyError) -> Bool {
        var code: Int32 = 0
        switch vein_fault_file_call(call, storePath, &code) {
        case VEIN_FILE_FAIL: throw .keyringFailed(String(cString: strerror(code)))
        case VEIN_FILE_SKIP: return false
        default: return true
        }
    }

    func store(key: CipherKey, app: String, storePath: String, state: KeyState) throws(KeyError) {
        guard try ask(VEIN_KEYRING_CHANGE, storePath) else { return }
        items.withLock { $0[Self.name(storePath, state)] = key }
    }

    func lookup(storePath: String, state: KeyState) throws(KeyError) -> CipherKey? {
        _ = try ask(VEIN_KEYRING_LOOKUP, storePath)
        return items.withLock { $0[Self.name(storePath, state)] }
    }

    @discardableResult
    func remove(storePath: String, state: KeyState) throws(KeyError) -> Bool {
        guard try ask(VEIN_KEYRING_CHANGE, storePath) else { return true }
        return items.withLock { $0.removeValue(forKey: Self.name(storePath, state)) != nil }
    }
}

/// A keyring that holds one key, as current, for every store: "does this key open that store?"
struct OneKeyKeyring: Keyring {
    let key: CipherKey

    func store(key: CipherKey, app: String, storePath: String, state: KeyState) throws(KeyError) {
        throw .keyringFailed("read-only")
    }

    func lookup(storePath: String, state: KeyState) throws(KeyError) -> CipherKey? { state == .current ? key : nil }

    func remove(storePath: String, state: KeyState) throws(KeyError) -> Bool { false }
}
