import Foundation
import Testing
import Vein

/// The rules of docs/keys.md for the keys users give: weak and mistyped keys are refused, whitespace around a key is
/// not part of it, explicit options beat the environment, and messages name the source they tried.
@Suite struct KeyPolicyTests {
    static let hex = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
    static let weakHint = "hint: choose a longer passphrase, or accept this one with --weak-passphrase\n"
    let manifest = VeinRunner.exampleManifest

    @Test func createRefusesAShortPassphraseUnlessAccepted() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        let refused = try r.vein(["create", "p.vein", "--schema", manifest, "--passphrase"], stdin: "x\n")
        #expect(refused.status == 65)
        #expect(refused.stderr == "vein: error: the passphrase given has 1 character; a new store's passphrase needs at least 12\n" + Self.weakHint)
        #expect(!r.exists("p.vein"))
        let accepted = try r.vein(["create", "p.vein", "--schema", manifest, "--passphrase", "--weak-passphrase", "-q"], stdin: "x\n")
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(try r.vein(["verify", "p.vein", "--passphrase", "-q"], stdin: "x\n").status == 0)

        // Every command that gives a new store a key: encrypt with a key from VEIN_KEY.
        try #require(try r.vein(["create", "plain.vein", "--schema", manifest, "--plaintext", "-q"]).status == 0)
        let encrypt = try r.vein(["encrypt", "plain.vein", "e.vein"], environment: ["VEIN_KEY": "short"])
        #expect(encrypt.status == 65)
        #expect(encrypt.stderr == "vein: error: the key from environment variable VEIN_KEY has 5 characters; a new store's passphrase needs at least 12\n"
                + Self.weakHint)
        #expect(!r.exists("e.vein"))
    }

    @Test func rotateRefusesAShortNewPassphraseUnlessAccepted() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try #require(try r.vein(["create", "s.vein", "--schema", manifest, "--key-file", "k", "-q"]).status == 0)
        let refused = try r.vein(["key", "rotate", "s.vein", "--key-file", "k", "--to-passphrase"], stdin: "hunter2\n")
        #expect(refused.status == 65)
        #expect(refused.stderr == "vein: error: the passphrase given has 7 characters; a new store's passphrase needs at least 12\n" + Self.weakHint)
        #expect(try r.vein(["verify", "s.vein", "--key-file", "k", "-q"]).status == 0, "still under its old key")
        let accepted = try r.vein(["key", "rotate", "s.vein", "--key-file", "k", "--to-passphrase", "--weak-passphrase", "-q"], stdin: "hunter2\n")
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(try r.vein(["verify", "s.vein", "--passphrase", "-q"], stdin: "hunter2\n").status == 0)
    }

    @Test func mistypedRawKeysAreRefusedAndWhitespaceAroundAKeyIsIgnored() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try r.write("typo.key", String(Self.hex.dropLast()) + "\n", mode: 0o600)
        let typo = try r.vein(["create", "s.vein", "--schema", manifest, "--key-file", "typo.key"])
        #expect(typo.status == 65)
        #expect(typo.stderr == """
            vein: error: the key from key file typo.key looks like a raw key with 63 hex digits (a raw key has 64)
            hint: check it for a lost or extra digit; a passphrase must not be only hex digits

            """)
        #expect(!r.exists("s.vein"))

        try r.write("k", Self.hex + "\n", mode: 0o600)
        try #require(try r.vein(["create", "s.vein", "--schema", manifest, "--key-file", "k", "-q"]).status == 0)
        try r.write("spaced.key", "  " + Self.hex + " \n", mode: 0o600)
        let spaced = try r.vein(["verify", "s.vein", "--key-file", "spaced.key", "-q"])
        #expect(spaced.status == 0, "\(spaced.stderr)")
        #expect(try r.vein(["verify", "s.vein", "-q"], environment: ["VEIN_KEY": "\t" + Self.hex + "  "]).status == 0)

        let wrapped = try r.vein(["verify", "s.vein"], environment: ["VEIN_KEY": "x'not a key'"])
        #expect(wrapped.status == 65)
        #expect(wrapped.stderr.hasPrefix("vein: error: the key from environment variable VEIN_KEY is written as a raw key (x'…') but is not 64 hex digits\n"))

        let blank = try r.vein(["verify", "s.vein"], environment: ["VEIN_KEY": " "])
        #expect(blank.status == 65)
        #expect(blank.stderr == "vein: error: the key from environment variable VEIN_KEY is empty\n")

        // A NUL cannot reach SQLCipher (keys are C strings there): refused, never cut short.
        try r.write("nul.key", "correct horse\u{0}battery\n", mode: 0o600)
        let nul = try r.vein(["verify", "s.vein", "--key-file", "nul.key"])
        #expect(nul.status == 65)
        #expect(nul.stderr == "vein: error: the key from key file nul.key contains a NUL character, which SQLCipher cannot use\n")
    }

    @Test func explicitOptionsBeatVEIN_KEYAndAWrongKeyNamesItsSource() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        let wrongInEnvironment = ["VEIN_KEY": String(repeating: "ab", count: 32)]
        try #require(try r.vein(["create", "s.vein", "--schema", manifest, "--key-file", "k", "-q"]).status == 0)
        try #require(try r.vein(["create", "p.vein", "--schema", manifest, "--passphrase", "-q"], stdin: "correct horse battery\n").status == 0)
        #expect(try r.vein(["verify", "s.vein", "--key-file", "k", "-q"], environment: wrongInEnvironment).status == 0)
        let typed = try r.vein(["verify", "p.vein", "--passphrase", "-q"], stdin: "correct horse battery\n", environment: wrongInEnvironment)
        #expect(typed.status == 0, "\(typed.stderr)")

        let hint = "hint: check which key source is used: --key-file, --key-env, --passphrase, VEIN_KEY, then the keyring\n"
        try r.write("wrong.key", Self.hex + "\n", mode: 0o600)
        let wrongFile = try r.vein(["verify", "s.vein", "--key-file", "wrong.key"], environment: wrongInEnvironment)
        #expect(wrongFile.status == 77)
        #expect(wrongFile.stderr == "vein: error: cannot decrypt s.vein with the key from key file wrong.key: wrong key or not a Vein store\n" + hint)
        let wrongTyped = try r.vein(["verify", "p.vein", "--passphrase"], stdin: "wrong horse battery\n")
        #expect(wrongTyped.status == 77)
        #expect(wrongTyped.stderr == "vein: error: cannot decrypt p.vein with the passphrase given: wrong key or not a Vein store\n" + hint)
    }

    /// A key file others can read is a configuration error (78) on every path that reads one, a pending
    /// key file included: ignoring it would report "wrong key" for a store only the pending key opens.
    @Test func looseKeyFilePermissionsAreExit78OnEveryPath() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try #require(try r.vein(["create", "s.vein", "--schema", manifest, "--key-file", "k", "-q"]).status == 0)
        // A rotation stopped after the rename: only k.pending opens the store now.
        let killed = try r.vein(["key", "rotate", "s.vein", "--key-file", "k"], environment: ["VEIN_TEST_ROTATE_STOP": "renamed"])
        try #require(killed.status == 128 + 9)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: r.path("k.pending"))
        for command in [["verify", "s.vein", "--key-file", "k"], ["key", "rotate", "s.vein", "--key-file", "k"]] {
            let open = try r.vein(command)
            #expect(open.status == 78, "\(command)")
            #expect(open.stderr == "vein: error: key file k.pending is accessible by others (mode 644)\nhint: restrict it with 'chmod 600 k.pending'\n")
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: r.path("k.pending"))
        #expect(try r.vein(["verify", "s.vein", "--key-file", "k", "-q"]).status == 0)

        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: r.path("k"))
        let rotate = try r.vein(["key", "rotate", "s.vein", "--key-file", "k"])
        #expect(rotate.status == 78)
        #expect(rotate.stderr == "vein: error: key file k is accessible by others (mode 640)\nhint: restrict it with 'chmod 600 k'\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: r.path("k"))

        // A --to-key-file destination is never left open: an existing one is replaced by a 0600 file.
        try r.write("ci.key", "old\n", mode: 0o644)
        #expect(try r.vein(["key", "rotate", "s.vein", "--key-file", "k", "--to-key-file", "ci.key", "--force", "-q"]).status == 0)
        let mode = try FileManager.default.attributesOfItem(atPath: r.path("ci.key"))[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try r.vein(["verify", "s.vein", "--key-file", "ci.key", "-q"]).status == 0)
    }
}
