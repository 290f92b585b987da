import Foundation
import Testing
import Vein

/// `vein key rotate` and `vein key status`: crash safety (the process killed at every step and at random
/// moments), every pair of key sources with a real keyring, and the refusals.
@Suite struct KeyRotationTests {
    /// An encrypted store keyed by the key file `k`, holding `posts` posts.
    func store(posts: Int) throws -> VeinRunner {
        let r = try VeinRunner()
        try #require(try r.vein(["create", "s.vein", "--schema", VeinRunner.exampleManifest, "--key-file", "k"]).status == 0)
        let keys = KeyOptions(keyFile: r.path("k"), keyring: nil)
        let context = ObjectContext(store: try Store.open(r.path("s.vein"), keys: keys))
        for i in 0..<posts { _ = try context.insert("Post", ["title": .string("Post \(i)"), "content": .string(String(repeating: "z", count: 200))]) }
        try context.save()
        return r
    }

    func exportText(_ r: VeinRunner) throws -> String {
        let result = try r.vein(["export", "s.vein", "--key-file", "k"])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout
    }

    @Test(arguments: ["pendingRecorded", "exported", "renamed", "promoted"])
    func killedAtEachStepTheStoreStillOpens(step: String) throws {
        let r = try store(posts: 500)
        defer { r.cleanUp() }
        let before = try exportText(r)
        let killed = try r.vein(["key", "rotate", "s.vein", "--key-file", "k"], environment: ["VEIN_TEST_ROTATE_STOP": step])
        #expect(killed.status == 128 + 9, "stopped by SIGKILL at \(step)")
        #expect(try exportText(r) == before, "every row intact after a stop at \(step)")
        #expect(try r.vein(["verify", "s.vein", "--key-file", "k", "-q"]).status == 0)
        let status = try r.vein(["key", "status", "s.vein", "--key-file", "k"])
        #expect(status.stdout.contains("pending key  \(step == "promoted" ? "none" : "yes")"), "\(status.stdout)")
        // The next rotation finishes the job and leaves no pending key.
        #expect(try r.vein(["key", "rotate", "s.vein", "--key-file", "k", "-q"]).status == 0)
        #expect(!r.exists("k.pending"))
        #expect(try exportText(r) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: r.directory.path).filter { $0.contains(".rotating-") }.isEmpty)
    }

    /// A move to a new key file killed at each step: before the rename the old key file opens the store and
    /// the new one does not exist yet; after it the new key file's name finds its pending key (FILE.pending is
    /// all there is), and the next rotation through that name finishes the move.
    @Test(arguments: ["pendingRecorded", "exported", "renamed", "promoted"])
    func killedMovingToANewKeyFileOneOfTheTwoNamesOpensIt(step: String) throws {
        let r = try store(posts: 50)
        defer { r.cleanUp() }
        let before = try exportText(r)
        let killed = try r.vein(["key", "rotate", "s.vein", "--key-file", "k", "--to-key-file", "k2"], environment: ["VEIN_TEST_ROTATE_STOP": step])
        #expect(killed.status == 137)
        let renamed = step == "renamed" || step == "promoted"
        let opening = renamed ? "k2" : "k"
        let info = try r.vein(["info", "s.vein", "--key-file", opening])
        #expect(info.status == 0, "after a stop at \(step): \(info.stderr)")
        if !renamed {
            let other = try r.vein(["info", "s.vein", "--key-file", "k2"])
            #expect(other.status == 66 && other.stderr == "vein: error: cannot read key file k2: no such file\n", "\(other.stderr)")
        }
        #expect(try r.vein(["key", "rotate", "s.vein", "--key-file", opening, "-q"]).status == 0)
        #expect(try r.vein(["export", "s.vein", "--key-file", opening]).stdout == before)
        #expect(!r.exists(opening + ".pending") && r.exists(opening))
    }

    /// Two interrupted rotations in a row: the second must not replace the pending key that alone opens
    /// the store (it settles it first).
    @Test(arguments: ["pendingRecorded", "exported", "renamed"])
    func aSecondInterruptedRotationKeepsTheStoreOpenable(secondStop: String) throws {
        let r = try store(posts: 50)
        defer { r.cleanUp() }
        let before = try exportText(r)
        #expect(try r.vein(["key", "rotate", "s.vein", "--key-file", "k"], environment: ["VEIN_TEST_ROTATE_STOP": "renamed"]).status == 137)
        #expect(try r.vein(["key", "rotate", "s.vein", "--key-file", "k"], environment: ["VEIN_TEST_ROTATE_STOP": secondStop]).status == 137)
        #expect(try exportText(r) == before, "after stops at renamed, then \(secondStop)")
        #expect(try r.vein(["key", "rotate", "s.vein", "--key-file", "k", "-q"]).status == 0)
        #expect(try exportText(r) == before)
        #expect(!r.exists("k.pending"))
    }

    @Test func killedAtRandomMomentsTheStoreAlwaysOpens() throws {
        let r = try store(posts: 20_000)
        defer { r.cleanUp() }
        let before = try exportText(r)
        for attempt in 0..<6 {
            let delay = Double.random(in: 0.01...0.5)
            _ = try r.run("/bin/sh", ["-c", "\"$0\" key rotate s.vein --key-file k -q & p=$!; sleep \(delay); kill -9 $p; wait $p; true", VeinRunner.binary])
            #expect(try r.vein(["verify", "s.vein", "--key-file", "k", "-q"]).status == 0, "attempt \(attempt)")
            #expect(try exportText(r) == before, "attempt \(attempt)")
        }
    }

    /// Temporaries a killed rotation leaves (the store's copy and its journal, the key file's and the pending
    /// key's) are removed by the next command of any kind on the store, not only by the next rotation.
    @Test func anyCommandAfterAKilledRotationLeavesNoTemporaries() throws {
        let r = try store(posts: 5_000)
        defer { r.cleanUp() }
        let before = try exportText(r)
        func temporaries() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: r.path(".")).filter { $0.hasPrefix(".") || $0.hasSuffix("-journal") }
        }
        var stops: [(String, [String: String], Double?)] = ["pendingRecorded", "exported", "renamed", "promoted"].map {
            ("step \($0)", ["VEIN_TEST_ROTATE_STOP": $0], nil)
        }
        stops += (0..<12).map { i in ("random moment \(i)", [:], Double.random(in: 0.005...0.4)) }
        for (moment, environment, delay) in stops {
            if let delay {
                _ = try r.run("/bin/sh", ["-c", "\"$0\" key rotate s.vein --key-file k -q & p=$!; sleep \(delay); kill -9 $p; wait $p; true",
                                          VeinRunner.binary])
            } else {
                #expect(try r.vein(["key", "rotate", "s.vein", "--key-file", "k"], environment: environment).status == 137)
            }
            // Planted as a kill while a temporary is written would leave them, whatever the moment hit.
            for name in [".k.writing-01J0000000000000000000DEAD", ".k.pending.writing-01J0000000000000000000DEAD",
                         ".s.vein.rotating-01J0000000000000000000DEAD", ".s.vein.rotating-01J0000000000000000000DEAD-journal"] {
                try r.write(name, "x", mode: 0o600)
            }
            let info = try r.vein(["info", "s.vein", "--key-file", "k"])
            #expect(info.status == 0, "after \(moment): \(info.stderr)")
            let left = try temporaries()
            #expect(left == [], "after \(moment): \(left)")
            #expect(try exportText(r) == before, "after \(moment)")
        }
    }

    /// Another process's temporary that is still being written (its writer holds the lock) stays, beside
    /// the store and beside the key file; the same names unlocked are removed.
    @Test func aLiveWritersTemporariesAreNeverRemoved() throws {
        let r = try store(posts: 3)
        defer { r.cleanUp() }
        let live = [".s.vein.rotating-01J0000000000000000000AAAA", ".k.pending.writing-01J0000000000000000000AAAA"]
        for name in live + live.map({ $0.replacingOccurrences(of: "AAAA", with: "DEAD") }) { try r.write(name, "x", mode: 0o600) }
        let result = try r.run("/bin/sh", ["-c", """
            flock \(live[0]) flock \(live[1]) sleep 5 > /dev/null 2>&1 &
            while flock -n \(live[1]) true; do sleep 0.05; done
            "$0" info s.vein --key-file k > /dev/null; echo "info $?"
            ls -A | grep -E 'AAAA|DEAD'
            """, VeinRunner.binary])
        #expect(result.stdout == "info 0\n" + live.sorted().joined(separator: "\n") + "\n", "\(result.stdout) \(result.stderr)")
    }

    /// A key file rotated in place keeps its old key as FILE.retired-DATE, which opens a backup made before;
    /// moved to another key file, FILE itself is retired, and naming it says so.
    @Test func keyFilesAreRetiredNeverOverwritten() throws {
        let r = try store(posts: 3)
        defer { r.cleanUp() }
        let old = try String(contentsOfFile: r.path("k"), encoding: .utf8)
        #expect(try r.vein(["backup", "s.vein", "b.vein", "--key-file", "k"]).status == 0)
        #expect(try r.vein(["key", "rotate", "s.vein", "--key-file", "k", "-q"]).status == 0)
        let retired = try FileManager.default.contentsOfDirectory(atPath: r.directory.path).filter { $0.hasPrefix("k.retired-") }
        try #require(retired.count == 1, "\(retired)")
        #expect(try String(contentsOfFile: r.path(retired[0]), encoding: .utf8) == old)
        #expect(try r.vein(["verify", "b.vein", "--key-file", retired[0], "-q"]).status == 0, "the backup opens with the retired key")
        let status = try r.vein(["key", "status", "s.vein", "--key-file", "k"])
        #expect(KeyRetirementTests.masked(status.stdout).hasSuffix("retired keys 1\n  key file k.retired-STAMP, retired DATE\n"), "\(status.stdout)")

        #expect(try r.vein(["key", "rotate", "s.vein", "--key-file", "k", "--to-key-file", "k2", "-q"]).status == 0)
        #expect(!r.exists("k"))
        let info = try r.vein(["info", "s.vein", "--key-file", "k"])
        #expect(info.status == 66)
        #expect(KeyRetirementTests.masked(info.stderr) == """
            vein: error: key file k was retired on DATE, when the store's key moved elsewhere; k.retired-STAMP keeps the old key
            hint: give the store's new key source; the retired key opens copies and backups made before the rotation

            """)
        #expect(try r.vein(["info", "s.vein", "--key-file", "k2"]).status == 0)

        // --force replaces another key file's key, and keeps it.
        try r.write("other", "another store's passphrase\n", mode: 0o600)
        #expect(try r.vein(["key", "rotate", "s.vein", "--key-file", "k2", "--to-key-file", "other", "--force", "-q"]).status == 0)
        let kept = try FileManager.default.contentsOfDirectory(atPath: r.directory.path).filter { $0.hasPrefix("other.retired-") }
        try #require(kept.count == 1, "\(kept)")
        #expect(try String(contentsOfFile: r.path(kept[0]), encoding: .utf8) == "another store's passphrase\n")
        #expect(try r.vein(["info", "s.vein", "--key-file", "other"]).status == 0)
    }

    @Test func refusalsAndMessages() throws {
        let r = try store(posts: 3)
        defer { r.cleanUp() }
        let before = try Data(contentsOf: URL(fileURLWithPath: r.path("s.vein")))
        // Another process (this test) has the store open: exit 75, nothing changed.
        let holder = try Store.open(r.path("s.vein"), keys: KeyOptions(keyFile: r.path("k"), keyring: nil))
        let busy = try r.vein(["key", "rotate", "s.vein", "--key-file", "k"])
        #expect(busy.status == 75 && busy.stderr.contains("busy"), "\(busy.stderr)")
        try holder.database.close()
        // A wrong key: exit 77; a key from the environment with nowhere to put the new one: exit 64.
        try r.write("wrong", String(repeating: "ab", count: 32) + "\n", mode: 0o600)
        #expect(try r.vein(["key", "rotate", "s.vein", "--key-file", "wrong"]).status == 77)
        let key = try String(contentsOfFile: r.path("k"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let env = try r.vein(["key", "rotate", "s.vein"], environment: ["VEIN_KEY": key])
        #expect(env.status == 64 && env.stderr.contains("hint: name where the new key goes: --to-keyring, --to-key-file FILE or --to-passphrase"))
        // An existing key file is not overwritten without --force.
        try r.write("taken", "keep me\n", mode: 0o600)
        let taken = try r.vein(["key", "rotate", "s.vein", "--key-file", "k", "--to-key-file", "taken"])
        #expect(taken.status == 73 && taken.stderr.contains("vein: error: key file taken already exists"), "\(taken.stderr)")
        #expect(try String(contentsOfFile: r.path("taken"), encoding: .utf8) == "keep me\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: r.path("s.vein"))) == before)
        // Plaintext stores have no key.
        try #require(try r.vein(["create", "p.vein", "--schema", VeinRunner.exampleManifest, "--plaintext"]).status == 0)
        let plain = try r.vein(["key", "rotate", "p.vein"])
        #expect(plain.status == 65 && plain.stderr.contains("p.vein is not encrypted"))
    }

    /// Between every kind of source, with a real gnome-keyring: key file → keyring → keyring (in place) → key
    /// file → passphrase → keyring → passphrase → key file, environment → key file → key file; the store
    /// opens with each new key and keeps its rows.
    @Test func movingThroughEverySource() throws {
        let r = try store(posts: 10)
        defer { r.cleanUp() }
        let before = try exportText(r)
        let vein = VeinRunner.binary
        let result = try r.run(VeinRunner.withSecretService, ["bash", "-c", """
            set -e
            '\(vein)' key rotate s.vein --key-file k --to-keyring -q
            '\(vein)' key status s.vein | head -1
            '\(vein)' key rotate s.vein -q
            '\(vein)' verify s.vein -q && echo keyring-verified
            '\(vein)' key rotate s.vein --to-key-file moved.key -q
            '\(vein)' key status s.vein --key-file moved.key | head -1
            printf 'new passphrase\\n' | '\(vein)' key rotate s.vein --key-file moved.key --to-passphrase -q
            printf 'new passphrase\\n' | '\(vein)' key status s.vein --passphrase | head -2
            printf 'new passphrase\\n' | '\(vein)' key rotate s.vein --passphrase --to-keyring -q
            '\(vein)' key status s.vein | head -1
            printf 'second passphrase\\n' | '\(vein)' key rotate s.vein --to-passphrase -q
            printf 'second passphrase\\n' | '\(vein)' key rotate s.vein --passphrase --to-key-file k --force -q
            VEIN_KEY="$(cat k)" '\(vein)' key rotate s.vein --to-key-file env.key -q
            '\(vein)' key rotate s.vein --key-file env.key --to-key-file k --force -q
            '\(vein)' export s.vein --key-file k
            """])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.prefix(6) == ["source       keyring", "keyring-verified", "source       key file moved.key",
                                    "source       passphrase", "key          passphrase (PBKDF2)", "source       keyring"], "\(result.stdout)")
        #expect(lines.dropFirst(6).joined(separator: "\n") == before)
    }
}
