import Foundation
import Synchronization
import Testing
@testable import Vein

/// An in-memory keyring that can also play an unreachable or failing Secret Service. Items are matched by
/// their attributes as the Secret Service matches them (an item matches when it has every attribute asked for).
final class FakeKeyring: Keyring {
    enum Behaviour: Sendable { case normal, unavailable, failing }
    struct Item: Equatable, Sendable {
        var app: String
        var key: CipherKey
    }

    let behaviour: Behaviour
    private let stored = Mutex<[(attributes: [String: String], label: String, key: CipherKey)]>([])

    init(_ behaviour: Behaviour = .normal) { self.behaviour = behaviour }

    private func check() throws(KeyError) {
        switch behaviour {
        case .normal: return
        case .unavailable: throw .keyringUnavailable("Cannot autolaunch D-Bus without X11 $DISPLAY")
        case .failing: throw .keyringFailed("the collection is locked")
        }
    }

    private static func matches(_ attributes: [String: String], _ wanted: [String: String]) -> Bool {
        wanted.allSatisfy { attributes[$0.key] == $0.value }
    }

    func store(key: CipherKey, app: String, storePath: String, state: KeyState) throws(KeyError) {
        try store(secret: key, attributes: ["app": app, "store": storePath, "state": state.rawValue], label: "Vein key")
    }

    func lookup(storePath: String, state: KeyState) throws(KeyError) -> CipherKey? {
        try items(matching: ["store": storePath, "state": state.rawValue]).first?.key
    }

    @discardableResult
    func remove(storePath: String, state: KeyState) throws(KeyError) -> Bool {
        try delete(matching: ["store": storePath, "state": state.rawValue]) > 0
    }

    func items(matching attributes: [String: String]) throws(KeyError) -> [KeyringItem] {
        try check()
        return stored.withLock { $0.filter { Self.matches($0.attributes, attributes) }.map { KeyringItem(attributes: $0.attributes, key: $0.key) } }
    }

    func store(secret: CipherKey, attributes: [String: String], label: String) throws(KeyError) {
        try check()
        stored.withLock { items in
            items.removeAll { $0.attributes == attributes }
            items.append((attributes, label, secret))
        }
    }

    @discardableResult
    func relabel(matching: [String: String], attributes: [String: String], label: String) throws(KeyError) -> Int {
        try check()
        return stored.withLock { items in
            var count = 0
            for i in items.indices where Self.matches(items[i].attributes, matching) {
                items[i].attributes = attributes
                items[i].label = label
                count += 1
            }
            return count
        }
    }

    @discardableResult
    func delete(matching attributes: [String: String]) throws(KeyError) -> Int {
        try check()
        return stored.withLock { items in
            let before = items.count
            items.removeAll { Self.matches($0.attributes, attributes) }
            return before - items.count
        }
    }

    func item(_ storePath: String, _ state: KeyState = .current) -> Item? {
        stored.withLock { items in
            items.first { Self.matches($0.attributes, ["store": storePath, "state": state.rawValue]) }
                .map { Item(app: $0.attributes["app"] ?? "", key: $0.key) }
        }
    }

    var count: Int { stored.withLock { $0.count } }
}

/// Keys: their text form, key files, and which source wins (docs/keys.md).
@Suite struct KeyTests {
    static let hex = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"

    // MARK: CipherKey

    @Test func sixtyFourHexDigitsAreARawKey() throws {
        let key = try CipherKey(text: Self.hex)
        #expect(key.kind == .raw)
        #expect(key == .raw(Data([0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff]
                                 + [0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff])))
        #expect(key.text == Self.hex)
        #expect("\(key)" == "CipherKey(raw 256-bit key)", "a key never prints its secret")
        #expect(try CipherKey(text: Self.hex.uppercased()) == key)
        #expect(key.kindDescription == "raw 256-bit key")
        #expect(key.pragmaArgument == "\"x'\(Self.hex)'\"")
    }

    @Test func trailingNewlinesAreStripped() throws {
        let raw = try CipherKey(text: Self.hex)
        #expect(try CipherKey(text: Self.hex + "\n") == raw)
        #expect(try CipherKey(text: Self.hex + "\r\n") == raw)
        #expect(try CipherKey(text: "secret\n") == .passphrase("secret"))
        #expect(try CipherKey(text: "secret\r\n") == .passphrase("secret"))
        // Issue 10 item 17: all surrounding whitespace goes (a pasted space made 64 hex digits a passphrase).
        #expect(try CipherKey(text: "secret\n\n") == .passphrase("secret"))
        #expect(try CipherKey(text: Self.hex + "\n\n") == raw)
        #expect(try CipherKey(text: " secret ") == .passphrase("secret"))
        #expect(try CipherKey(text: Self.hex + " ") == raw)
    }

    /// docs/keys.md: hex of the wrong length is a mistyped raw key, refused, never a passphrase.
    @Test func hexOfTheWrongLengthIsAMistypedRawKey() throws {
        #expect(throws: KeyError.mistypedRawKey(hexDigits: 63)) { try CipherKey(text: String(Self.hex.dropLast())) }
        #expect(throws: KeyError.mistypedRawKey(hexDigits: 65)) { try CipherKey(text: Self.hex + "0") }
        #expect(throws: KeyError.mistypedRawKey(hexDigits: 128)) { try CipherKey(text: Self.hex + Self.hex) }
        #expect(throws: KeyError.mistypedRawKey(hexDigits: 32)) { try CipherKey(text: String(Self.hex.prefix(32))) }
        #expect(throws: KeyError.mistypedRawKey(hexDigits: 62)) { try CipherKey(text: "x'" + String(Self.hex.dropLast(2)) + "'") }
        #expect(throws: KeyError.mistypedRawKey(hexDigits: nil)) { try CipherKey(text: "x'not hex'") }
        // The x'…' form SQLCipher itself takes, and surrounding whitespace, still give the raw key.
        #expect(try CipherKey(text: "x'" + Self.hex + "'") == CipherKey(text: Self.hex))
        #expect(try CipherKey(text: " \t" + Self.hex + " \n") == CipherKey(text: Self.hex))
        // Short hex, or long hex far from a key's length, is left to be a passphrase.
        #expect(try CipherKey(text: "deadbeef") == .passphrase("deadbeef"))
        #expect(try CipherKey(text: String(repeating: "a", count: 129)) == .passphrase(String(repeating: "a", count: 129)))
    }

    @Test func surroundingWhitespaceIsNotPartOfTheKeyAndAllWhitespaceIsEmpty() throws {
        #expect(try CipherKey(text: "  correct horse battery  \r\n") == .passphrase("correct horse battery"))
        #expect(throws: KeyError.emptyKey) { try CipherKey(text: " ") }
        #expect(throws: KeyError.emptyKey) { try CipherKey(text: " \t\n ") }
    }

    @Test func newStoresRefuseShortPassphrasesUnlessAccepted() throws {
        #expect(throws: KeyError.weakPassphrase(characters: 1)) { try CipherKey.passphrase("x").checkStrengthForNewStore(allowWeak: false) }
        #expect(throws: KeyError.weakPassphrase(characters: 11)) {
            try CipherKey.passphrase("elevenchars").checkStrengthForNewStore(allowWeak: false)
        }
        try CipherKey.passphrase("x").checkStrengthForNewStore(allowWeak: true)
        try CipherKey.passphrase("twelve chars").checkStrengthForNewStore(allowWeak: false)
        try CipherKey.random().checkStrengthForNewStore(allowWeak: false)
    }

    @Test func anythingElseIsAPassphrase() throws {
        let notHex = String(Self.hex.dropLast()) + "g"
        #expect(try CipherKey(text: notHex) == .passphrase(notHex))
        #expect(try CipherKey(text: "correct horse battery staple") == .passphrase("correct horse battery staple"))
        #expect(try CipherKey(text: "pässwörd 🔑") == .passphrase("pässwörd 🔑"))
        let p = CipherKey.passphrase("it's")
        #expect(p.pragmaArgument == "'it''s'")
        #expect(p.text == "it's")
        #expect(p.kindDescription == "passphrase (PBKDF2)")
    }

    @Test func emptyKeysAreRefused() {
        #expect(throws: KeyError.emptyKey) { try CipherKey(text: "") }
        #expect(throws: KeyError.emptyKey) { try CipherKey(text: "\n") }
        #expect(throws: KeyError.emptyKey) { try CipherKey(text: "\r\n") }
    }

    @Test func randomKeysAreRaw256BitAndDiffer() throws {
        let a = try CipherKey.random(), b = try CipherKey.random()
        #expect(a.kind == .raw)
        #expect(a != b)
        #expect(a.text.count == 64)
        #expect(try CipherKey(text: a.text) == a)
    }

    // MARK: Key files

    @Test func createWritesMode0600AndReadsBack() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let path = dir.path("k.key")
        let key = try CipherKey(text: Self.hex)
        try KeyFile.create(path, key: key)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == Self.hex + "\n")
        #expect(try KeyFile.read(path) == key)
        // Never replaces an existing file.
        #expect(throws: KeyError.keyFileExists(path: path)) { try KeyFile.create(path, key: .passphrase("other")) }
        #expect(try KeyFile.read(path) == key)
        // A passphrase key file.
        try KeyFile.create(dir.path("p.key"), key: .passphrase("hunter2"))
        #expect(try KeyFile.read(dir.path("p.key")) == .passphrase("hunter2"))
    }

    @Test func createInAMissingDirectoryFails() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        #expect(throws: FileError.self) { try KeyFile.create(dir.path("nope/k.key"), key: .passphrase("x")) }
    }

    @Test(arguments: [0o644, 0o640, 0o604, 0o660, 0o666, 0o601, 0o610, 0o700 | 0o044])
    func keyFilesOthersCanReachAreRefused(mode: Int) throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        try dir.write("k.key", Self.hex + "\n", mode: mode)
        #expect(throws: KeyError.keyFileTooOpen(path: dir.path("k.key"), mode: UInt16(mode))) { try KeyFile.read(dir.path("k.key")) }
    }

    @Test(arguments: [0o600, 0o400, 0o700])
    func ownerOnlyKeyFilesAreRead(mode: Int) throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        try dir.write("k.key", "pass phrase\n", mode: mode)
        #expect(try KeyFile.read(dir.path("k.key")) == .passphrase("pass phrase"))
    }

    @Test func unreadableKeyFiles() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        #expect(throws: KeyError.keyFileUnreadable(path: dir.path("missing"), reason: "no such file")) {
            try KeyFile.read(dir.path("missing"))
        }
        try FileManager.default.createDirectory(atPath: dir.path("adir"), withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o700])
        #expect(throws: KeyError.keyFileUnreadable(path: dir.path("adir"), reason: "not a regular file")) {
            try KeyFile.read(dir.path("adir"))
        }
        try Data([0xFF, 0xFE, 0x00]).write(to: URL(fileURLWithPath: dir.path("binary")))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: dir.path("binary"))
        #expect(throws: KeyError.keyFileUnreadable(path: dir.path("binary"), reason: "cannot read it as UTF-8 text")) {
            try KeyFile.read(dir.path("binary"))
        }
        try dir.write("empty", "", mode: 0o600)
        #expect(throws: KeyError.emptyKey) { try KeyFile.read(dir.path("empty")) }
    }

    // MARK: Sources

    @Test func firstSourceWins() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        try dir.write("k.key", "from-file")
        let env = ["MY_KEY": "from-my-key", "VEIN_KEY": "from-vein-key"]
        // docs/keys.md's order: --key-file, --key-env, --passphrase (explicit options beat the environment), VEIN_KEY, keyring.
        let prompt: @Sendable (Bool) throws -> String = { _ in "from-prompt" }
        let keyring = FakeKeyring()
        try keyring.store(key: .passphrase("from-keyring"), app: "a", storePath: "/s", state: .current)

        var options = KeyOptions(keyFile: dir.path("k.key"), keyEnv: "MY_KEY", passphrase: true, readPassphrase: prompt,
                                 environment: env, keyring: keyring)
        #expect(try options.keyForOpening(realPath: "/s") == (.passphrase("from-file"), .keyFile(dir.path("k.key"))))
        options.keyFile = nil
        #expect(try options.keyForOpening(realPath: "/s") == (.passphrase("from-my-key"), .environment("MY_KEY")))
        options.keyEnv = nil
        #expect(try options.keyForOpening(realPath: "/s") == (.passphrase("from-prompt"), .passphrasePrompt))
        options.passphrase = false
        #expect(try options.keyForOpening(realPath: "/s") == (.passphrase("from-vein-key"), .environment("VEIN_KEY")))
        options.environment = [:]
        #expect(try options.keyForOpening(realPath: "/s") == (.passphrase("from-keyring"), .keyring))
        #expect(try options.explicitKey() == nil)
    }

    @Test func emptyVEIN_KEYIsIgnoredButAnEmptyNamedVariableIsAnError() throws {
        let empty = KeyOptions(environment: ["VEIN_KEY": ""], keyring: nil)
        #expect(throws: KeyError.noKeySource(store: "/s", keyringProblem: "no keyring configured")) {
            try empty.keyForOpening(realPath: "/s")
        }
        #expect(throws: KeyError.environmentVariableUnset("K")) {
            try KeyOptions(keyEnv: "K", environment: ["K": ""], keyring: nil).keyForOpening(realPath: "/s")
        }
        #expect(throws: KeyError.environmentVariableUnset("K")) {
            try KeyOptions(keyEnv: "K", environment: ["VEIN_KEY": Self.hex], keyring: nil).keyForOpening(realPath: "/s")
        }
        // A raw key from the environment, newline and all.
        let fromEnv = try KeyOptions(keyEnv: "K", environment: ["K": Self.hex + "\n"], keyring: nil).keyForOpening(realPath: "/s")
        #expect(fromEnv == (try CipherKey(text: Self.hex), .environment("K")))
    }

    /// A problem with a key's text names the source that gave it; explicit options beat VEIN_KEY.
    @Test func keyProblemsNameTheirSourceAndOptionsBeatVEIN_KEY() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        try dir.write("typo.key", String(Self.hex.dropLast()) + "\n", mode: 0o600)
        #expect(throws: KeyError.unusableKey(source: .keyFile(dir.path("typo.key")), problem: .mistypedRawKey(hexDigits: 63))) {
            try KeyOptions(keyFile: dir.path("typo.key"), environment: [:], keyring: nil).keyForOpening(realPath: "/s")
        }
        #expect(throws: KeyError.unusableKey(source: .environment("VEIN_KEY"), problem: .emptyKey)) {
            try KeyOptions(environment: ["VEIN_KEY": " "], keyring: nil).keyForOpening(realPath: "/s")
        }
        let typed = KeyOptions(passphrase: true, readPassphrase: { _ in "typed passphrase" }, environment: ["VEIN_KEY": Self.hex], keyring: nil)
        #expect(try typed.keyForOpening(realPath: "/s") == (.passphrase("typed passphrase"), .passphrasePrompt))
    }

    @Test func passphraseWithoutAPromptIsUnavailable() {
        #expect(throws: KeyError.passphraseUnavailable("no way to ask for a passphrase here")) {
            try KeyOptions(passphrase: true, environment: [:], keyring: nil).keyForOpening(realPath: "/s")
        }
        #expect(throws: KeyError.unusableKey(source: .passphrasePrompt, problem: .emptyKey)) {
            try KeyOptions(passphrase: true, readPassphrase: { _ in "" }, environment: [:], keyring: nil).keyForOpening(realPath: "/s")
        }
    }

    @Test func keyringProblemsAreNeverNoKey() {
        #expect(throws: KeyError.noKeySource(store: "/s", keyringProblem: "no keyring configured")) {
            try KeyOptions(environment: [:], keyring: nil).keyForOpening(realPath: "/s")
        }
        #expect(throws: KeyError.noKeySource(store: "/s", keyringProblem: "the keyring has no key for this store")) {
            try KeyOptions(environment: [:], keyring: FakeKeyring()).keyForOpening(realPath: "/s")
        }
        #expect(throws: KeyError.noKeySource(store: "/s", keyringProblem: "the Secret Service is not available: Cannot autolaunch D-Bus without X11 $DISPLAY")) {
            try KeyOptions(environment: [:], keyring: FakeKeyring(.unavailable)).keyForOpening(realPath: "/s")
        }
        #expect(throws: KeyError.keyringFailed("the collection is locked")) {
            try KeyOptions(environment: [:], keyring: FakeKeyring(.failing)).keyForOpening(realPath: "/s")
        }
    }

    @Test func keySourceNames() {
        #expect(KeySource.keyFile("k").description == "key file k")
        #expect(KeySource.environment("VEIN_KEY").description == "environment variable VEIN_KEY")
        #expect(KeySource.passphrasePrompt.description == "passphrase")
        #expect(KeySource.keyring.description == "keyring")
        #expect(KeySource.none.description == "none (plaintext)")
        #expect([KeySource.keyFile("k"), .environment("E"), .passphrasePrompt, .keyring, .none].map(\.kind)
                == ["key-file", "environment", "passphrase", "keyring", "none"])
    }
}
