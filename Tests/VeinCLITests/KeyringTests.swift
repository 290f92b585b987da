import Foundation
import Testing
import Vein

/// The keyring path against a real gnome-keyring (Secret Service) on a private D-Bus session.
@Suite struct KeyringTests {
    @Test func createKeepsTheKeyInTheKeyringAndInfoFindsIt() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        let vein = VeinRunner.binary
        let realStore = try FileSystem.realPath(r.path("k.vein"))
        let result = try r.run(VeinRunner.withSecretService, ["bash", "-c", """
            set -e
            '\(vein)' create k.vein --schema '\(VeinRunner.exampleManifest)'
            '\(vein)' info k.vein --json
            echo ---
            secret-tool lookup store '\(realStore)' state current | wc -c
            secret-tool search --all store '\(realStore)' 2>&1 | grep -E '^(label|attribute)' | sort
            echo ---
            # A second store gets its own key; the first still opens.
            '\(vein)' create other.vein --schema '\(VeinRunner.exampleManifest)' --quiet
            '\(vein)' verify k.vein --quiet && echo verified
            # A new store at a path whose key is still in the keyring is refused, and the old key kept.
            rm k.vein
            '\(vein)' create k.vein --schema '\(VeinRunner.exampleManifest)' || echo "exit $?"
            """], environment: ["DBUS_SESSION_BUS_ADDRESS": ""])
        #expect(result.status == 0, "\(result.stderr)")
        let parts = result.stdout.components(separatedBy: "---\n")
        try #require(parts.count == 3, "\(result.stdout)\n\(result.stderr)")
        #expect(parts[0].hasPrefix("created k.vein: com.example.blog 0.0.1, 2 models, encrypted, new key in the keyring\n"))
        let info = try JSONParser.parse(String(parts[0].drop { $0 != "{" })).objectValue
        #expect(info?["keySource"] == .string("keyring"))
        #expect(parts[1] == """
            64
            attribute.app = com.example.blog
            attribute.state = current
            attribute.store = \(realStore)
            label = Vein key for com.example.blog store \(realStore)

            """)
        #expect(parts[2].contains("verified\n"))
        #expect(parts[2].contains("exit 73\n"))
        #expect(result.stderr.contains("the keyring already holds a key for this path"))
    }

    @Test func noSecretServiceMeansExit69AndNoKeyGenerated() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        // No bus at all.
        let noBus = try r.vein(["create", "s.vein", "--schema", VeinRunner.exampleManifest])
        #expect(noBus.status == 69)
        #expect(noBus.stderr.contains("(the Secret Service is not available: Could not connect: No such file or directory)"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: r.directory.path).isEmpty)
    }

    @Test func aStoreWithoutAKeyringItemGivesExit69NotANewKey() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try #require(try r.vein(["create", "s.vein", "--schema", VeinRunner.exampleManifest, "--key-file", "k"]).status == 0)
        let result = try r.run(VeinRunner.withSecretService, ["bash", "-c", "'\(VeinRunner.binary)' info s.vein; echo \"exit $?\""],
                               environment: ["DBUS_SESSION_BUS_ADDRESS": ""])
        #expect(result.stdout == "exit 69\n")
        #expect(result.stderr.contains("(the keyring has no key for this store)"))
    }

    /// ARCHITECTURE.md I10: a failed keyring read is never "no key". A locked collection whose unlock prompt cannot be
    /// shown (no display here) made libsecret's password lookup answer "no secret", reported as exit 69.
    @Test func aLockedKeyringIsExit74NotNoKey() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        let vein = VeinRunner.binary
        let result = try r.run(VeinRunner.withSecretService, ["bash", "-c", """
            '\(vein)' create k.vein --schema '\(VeinRunner.exampleManifest)' --quiet || exit 1
            dbus-send --session --print-reply --dest=org.freedesktop.secrets /org/freedesktop/secrets \\
              org.freedesktop.Secret.Service.Lock array:objpath:/org/freedesktop/secrets/collection/login >/dev/null || exit 2
            '\(vein)' info k.vein; echo "info exit $?"
            # Writing a new key into the locked keyring is refused the same way, and nothing is created.
            '\(vein)' create new.vein --schema '\(VeinRunner.exampleManifest)'; echo "create exit $?"
            ls
            """], environment: ["DBUS_SESSION_BUS_ADDRESS": ""])
        #expect(result.stdout == "info exit 74\ncreate exit 74\nk.vein\n", "\(result.stderr)")
        // gnome-keyring's failed attempt to start its prompter also writes to stderr; vein's lines are these.
        let veinLines = result.stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("vein: ") || $0.hasPrefix("hint: ") }
        let locked = ["vein: error: the keyring is locked",
                      "hint: unlock it (your desktop's keyring prompt, or 'secret-tool search --unlock store PATH') and try again, or give another key source"]
        #expect(veinLines == locked + locked, "\(result.stderr)")
        #expect(!result.stderr.contains("no key for"))
    }
}
