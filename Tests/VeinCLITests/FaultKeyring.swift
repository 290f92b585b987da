import CVeinFaultVFS
import Foundation
import Synchronization
import Vein

/// An in-memory Secret Service for the fault-injection loop: each lookup, store and removal asks the test
/// VFS's counter first (as Vein's file calls do), so the loop fails them in turn, and drops changes after a
/// power loss. One keyring per run directory, filled from the key file the scenario's store was made with.
final class FaultKeyring: Keyring {
    /// The run directory: the place counted for calls that name no store.
    let directory: String
    private let stored = Mutex<[(attributes: [String: String], label: String, key: CipherKey)]>([])

    private init(directory: String) { self.directory = directory }

    private static let byDirectory = Mutex<[String: FaultKeyring]>([:])

    /// The keyring of a run directory: on first use it holds `s.key`'s key for `s.vein`, as the keyring
    /// of a store made with the default key source would.
    static func of(_ directory: String) -> FaultKeyring {
        byDirectory.withLock { keyrings in
            if let keyring = keyrings[directory] { return keyring }
            let keyring = FaultKeyring(directory: directory)
            if let key = try? KeyFile.read(directory + "/s.key") {
                let attributes = [KeyringAttribute.app: "com.example.blog", KeyringAttribute.store: directory + "/s.vein",
                                  KeyringAttribute.state: KeyState.current.rawValue]
                keyring.stored.withLock { $0.append((attributes, "Vein key", key)) }
            }
            keyrings[directory] = keyring
            return keyring
        }
    }

    /// Forgets the keyrings of directories under `root` (a finished loop's).
    static func forget(under root: String) {
        byDirectory.withLock { keyrings in keyrings = keyrings.filter { !$0.key.hasPrefix(root + "/") } }
    }

    /// The counter's decision for one call about `attributes`' store; a failure is what libsecret reports
    /// for a broken connection. False: the power is off, the change is lost.
    private func ask(_ call: vein_file_call, _ attributes: [String: String]) throws(KeyError) -> Bool {
        var code: Int32 = 0
        switch vein_fault_file_call(call, attributes[KeyringAttribute.store] ?? directory, &code) {
        case VEIN_FILE_FAIL: throw .keyringFailed(String(cString: strerror(code)))
        case VEIN_FILE_SKIP: return false
        default: return true
        }
    }

    private static func matches(_ attributes: [String: String], _ wanted: [String: String]) -> Bool {
        wanted.allSatisfy { attributes[$0.key] == $0.value }
    }

    private static func attributes(_ storePath: String, _ state: KeyState) -> [String: String] {
        [KeyringAttribute.store: storePath, KeyringAttribute.state: state.rawValue]
    }

    func store(key: CipherKey, app: String, storePath: String, state: KeyState) throws(KeyError) {
        try store(secret: key, attributes: Self.attributes(storePath, state).merging([KeyringAttribute.app: app]) { $1 }, label: "Vein key")
    }

    func lookup(storePath: String, state: KeyState) throws(KeyError) -> CipherKey? {
        try items(matching: Self.attributes(storePath, state)).first?.key
    }

    @discardableResult
    func remove(storePath: String, state: KeyState) throws(KeyError) -> Bool {
        try delete(matching: Self.attributes(storePath, state)) > 0
    }

    func items(matching attributes: [String: String]) throws(KeyError) -> [KeyringItem] {
        _ = try ask(VEIN_KEYRING_LOOKUP, attributes)
        return stored.withLock { $0.filter { Self.matches($0.attributes, attributes) }.map { KeyringItem(attributes: $0.attributes, key: $0.key) } }
    }

    func store(secret: CipherKey, attributes: [String: String], label: String) throws(KeyError) {
        guard try ask(VEIN_KEYRING_CHANGE, attributes) else { return }
        stored.withLock { items in
            items.removeAll { $0.attributes == attributes }
            items.append((attributes, label, secret))
        }
    }

    @discardableResult
    func relabel(matching: [String: String], attributes: [String: String], label: String) throws(KeyError) -> Int {
        try edit(matching) { ($0.key, attributes, label) }
    }

    @discardableResult
    func delete(matching attributes: [String: String]) throws(KeyError) -> Int {
        try edit(attributes) { _ in nil }
    }

    /// Replaces each item matching `wanted` by what `change` makes of it (nil deletes it), once the counter
    /// lets the change through; returns how many matched.
    private func edit(_ wanted: [String: String],
                      _ change: ((key: CipherKey, attributes: [String: String], label: String)) -> (CipherKey, [String: String], String)?) throws(KeyError) -> Int {
        guard try ask(VEIN_KEYRING_CHANGE, wanted) else { return 0 }
        return stored.withLock { items in
            let matching = items.filter { Self.matches($0.attributes, wanted) }
            items = items.filter { !Self.matches($0.attributes, wanted) }
                + matching.compactMap { change(($0.key, $0.attributes, $0.label)).map { (attributes: $0.1, label: $0.2, key: $0.0) } }
            return matching.count
        }
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
