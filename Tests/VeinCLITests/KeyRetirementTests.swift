import Foundation
import Testing
import Vein

/// Retired keys end to end: what a rotation leaves in the keyring and beside key files, what `vein info`
/// says when the keyring's key was retired or kept for another path, `vein key status` and `vein key forget`.
@Suite struct KeyRetirementTests {
    /// Dates change from run to run: ISO 8601 seconds and the FILE.retired-DATE stamp (with the counter a second
    /// retirement in the same second adds) become DATE and STAMP.
    static func masked(_ text: String) -> String {
        text.replacingOccurrences(of: #"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"#, with: "DATE", options: .regularExpression)
            .replacingOccurrences(of: #"\d{8}T\d{6}Z(-\d+)?"#, with: "STAMP", options: .regularExpression)
    }

    /// Runs `script` in bash with a private gnome-keyring, in `r`'s directory: `vein` is the binary under
    /// test, `store_with_a_post` creates `s.vein` keyed in the keyring, holding one post.
    static func keyringScript(_ r: VeinRunner, _ script: String) throws -> VeinRunner.Result {
        try r.run(VeinRunner.withSecretService, ["bash", "-c", """
            vein() { "$VEIN_BINARY" "$@"; }
            store_with_a_post() {
              vein create s.vein --schema "$VEIN_MANIFEST" -q && vein query s.vein 'insert Post(title: "t", content: "c")' > /dev/null
            }

            """ + script], environment: ["VEIN_BINARY": VeinRunner.binary, "VEIN_MANIFEST": VeinRunner.exampleManifest])
    }

    @Test func movingAKeyringKeyToAPassphraseRetiresItAndInfoSaysWhereItWent() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        let real = try FileSystem.realPath(r.path("s.vein")), backup = try FileSystem.realPath(r.path("b.vein"))
        let result = try Self.keyringScript(r, """
            set -e
            store_with_a_post
            vein backup s.vein b.vein
            printf 'a new passphrase\\n' | vein key rotate s.vein --to-passphrase -q
            secret-tool search --all store '\(real)' 2>&1 | grep -E '^attribute\\.(state|moved-to)' | sort
            echo ---
            vein info s.vein || echo "info exit $?"
            echo ---
            printf 'a new passphrase\\n' | vein key status s.vein --passphrase | tail -3
            printf 'a new passphrase\\n' | vein key status s.vein --passphrase --json | grep -A4 '"retiredKeys"'
            echo ---
            vein key forget s.vein || echo "forget exit $?"
            secret-tool clear store '\(backup)' state current
            vein key forget s.vein || echo "forget exit $?"
            vein key forget s.vein --purge
            vein key forget s.vein
            secret-tool search --all store '\(real)' 2>&1 | grep -c '^attribute\\.state' || true
            """)
        #expect(result.status == 0, "\(result.stderr)")
        let parts = Self.masked(result.stdout).components(separatedBy: "---\n")
        try #require(parts.count == 4, "\(result.stdout)\n\(result.stderr)")
        // The backup's record stays beside the retired key; no item is current any more.
        #expect(parts[0] == "attribute.moved-to = passphrase\nattribute.state = backup-record\nattribute.state = retired\n")
        #expect(parts[1] == "info exit 69\n")
        #expect(parts[2] == """
            pending key  none
            retired keys 1
              keyring item, retired DATE, when the key moved to the passphrase
              "retiredKeys": [
                {
                  "place": "keyring",
                  "retiredAt": "DATE",
                  "movedTo": "passphrase"

            """)
        #expect(parts[3] == "forget exit 64\nforget exit 64\n0\n")
        let stderr = Self.masked(result.stderr).split(separator: "\n").map(String.init).filter { !$0.contains("fd limit") }
        #expect(stderr == [
            "vein: error: no key for \(real): the keyring's key for this store was retired on DATE when it moved to a passphrase",
            "hint: use --passphrase; with it, 'vein key status' lists the retired key, which opens copies made before the rotation",
            "vein: error: deleting 1 retired key of s.vein needs --purge",
            "  keyring item, retired DATE, when the key moved to the passphrase: no recorded backup needs it",
            "    (1 more backup made with it keeps its own keyring key)",
            "hint: a retired key also opens the copies of the store made before its rotation; 'vein key forget s.vein --purge' deletes them for good",
            "vein: error: deleting 1 retired key of s.vein needs --purge",
            "  keyring item, retired DATE, when the key moved to the passphrase: the only key of 1 backup",
            "    \(backup), made DATE",
            "hint: a retired key also opens the copies of the store made before its rotation; 'vein key forget s.vein --purge' deletes them for good",
            "deleted 1 retired key of s.vein",
            "no key vein knows opens these backups any more: \(backup)",
            "s.vein has no retired keys in the keyring",
        ], "\(result.stderr)")
    }

    /// A move out of the keyring killed after the rename, before the old item was retired: the next command
    /// finds the marked item no longer opening the store, retires it, and says where the key went.
    @Test func aMoveOutOfTheKeyringKilledAfterTheRenameIsFinishedByTheNextOpen() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        let real = try FileSystem.realPath(r.path("s.vein"))
        let result = try Self.keyringScript(r, """
            vein create s.vein --schema "$VEIN_MANIFEST" -q || exit 1
            printf 'a new passphrase\\na new passphrase\\n' | VEIN_TEST_ROTATE_STOP=renamed vein key rotate s.vein --to-passphrase
            echo "rotate exit $?"
            vein info s.vein || echo "info exit $?"
            printf 'a new passphrase\\n' | vein key status s.vein --passphrase | tail -2
            secret-tool search --all store '\(real)' 2>&1 | grep -E '^attribute\\.(state|moved-to)' | sort
            """)
        #expect(Self.masked(result.stdout) == """
            rotate exit 137
            info exit 69
            retired keys 1
              keyring item, retired DATE, when the key moved to the passphrase
            attribute.moved-to = passphrase
            attribute.state = retired

            """, "\(result.stderr)")
        let lines = Self.masked(result.stderr).split(separator: "\n").map(String.init).filter { $0.hasPrefix("vein:") || $0.hasPrefix("hint:") }
        #expect(lines == [
            "vein: error: no key for \(real): the keyring's key for this store was retired on DATE when it moved to a passphrase",
            "hint: use --passphrase; with it, 'vein key status' lists the retired key, which opens copies made before the rotation",
        ], "\(result.stderr)")
    }

    /// A copy from before a rotation put back over the store opens only with the retired key: opening says
    /// so (not "wrong key"), `key forget --purge` keeps that key, and the hint's command gives the store a
    /// key of its own.
    @Test func aCopyFromBeforeARotationPutBackKeepsTheKeyThatOpensIt() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        let real = try FileSystem.realPath(r.path("s.vein"))
        let result = try Self.keyringScript(r, """
            set -e
            store_with_a_post
            cp s.vein old.vein
            vein key rotate s.vein -q
            cp old.vein s.vein
            vein info s.vein || echo "info exit $?"
            vein key forget s.vein --purge
            retired=$(secret-tool search --all store '\(real)' state retired 2>&1 | sed -n 's/^attribute\\.retired = //p')
            VEIN_KEY="$(secret-tool lookup store '\(real)' state retired retired "$retired")" vein key rotate '\(real)' --to-keyring -q
            vein query s.vein 'count Post'
            """)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "info exit 69\n1\n", "\(result.stderr)")
        let lines = Self.masked(result.stderr).split(separator: "\n").map(String.init).filter { !$0.contains("fd limit") }
        #expect(lines == [
            "vein: error: cannot decrypt \(real) with the key in the keyring, but the key the keyring retired for it on DATE opens it "
                + "(it is a copy from before that rotation)",
            "hint: give it a key of its own: VEIN_KEY=\"$(secret-tool lookup store '\(real)' state retired retired 'DATE')\" "
                + "vein key rotate '\(real)' --to-keyring",
            "s.vein has no retired key to delete",
            "  keyring item, retired DATE, when the key moved to the keyring: kept: it opens s.vein as it is now (a copy from before its rotation)",
        ], "\(result.stderr)")
    }

    /// A rotation in place keeps the old key as a retired item: a copy made before it still opens.
    @Test func rotatingInTheKeyringKeepsTheOldKeyForOldCopies() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        let real = try FileSystem.realPath(r.path("s.vein"))
        let result = try Self.keyringScript(r, """
            set -e
            store_with_a_post
            cp s.vein old.vein
            vein key rotate s.vein -q
            vein query s.vein 'count Post'
            VEIN_KEY="$(secret-tool lookup store '\(real)' state retired)" vein query old.vein 'count Post'
            vein key status s.vein | tail -2
            """)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.masked(result.stdout) == "1\n1\nretired keys 1\n  keyring item, retired DATE, when the key moved to the keyring\n")
    }

    /// A store moved away from the path its keyring key is kept under: the message names that path and how
    /// to move the key, and following the hint works.
    @Test func aMovedStoreNamesThePathItsKeyIsKeptFor() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try FileManager.default.createDirectory(atPath: r.path("moved"), withIntermediateDirectories: true)
        let old = try FileSystem.realPath(r.path("a.vein")), moved = try FileSystem.realPath(r.path("moved")) + "/b.vein"
        let result = try Self.keyringScript(r, """
            set -e
            vein create other.vein --schema "$VEIN_MANIFEST" -q
            vein create a.vein --schema "$VEIN_MANIFEST" -q
            mv a.vein moved/b.vein
            vein info moved/b.vein || echo "info exit $?"
            VEIN_KEY="$(secret-tool lookup store '\(old)' state current)" vein key rotate '\(moved)' --to-keyring -q
            vein info moved/b.vein --json | grep '"keySource"'
            """)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "info exit 69\n  \"keySource\": \"keyring\",\n")
        let lines = result.stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("vein:") || $0.hasPrefix("hint:") }
        #expect(lines == [
            "vein: error: no key for \(moved): the keyring has no key for this path, but the key it keeps for \(old) opens it "
                + "(the store was moved or copied from there)",
            "hint: keep a key under the new path: VEIN_KEY=\"$(secret-tool lookup store '\(old)' state current)\" "
                + "vein key rotate '\(moved)' --to-keyring; or, while \(old) is there, make a copy with its own key: vein backup '\(old)' NEWPATH",
        ], "\(result.stderr)")
    }
}
