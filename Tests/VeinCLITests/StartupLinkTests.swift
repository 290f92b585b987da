import Foundation
import Testing

/// What the `vein` binary loads before it runs a line of its own code. libsecret (and with it GLib, GObject and
/// GIO) is opened only when a keyring is used (Sources/CVeinSecret): linked, it made every command, `vein
/// --version` included, pay for loading and relocating those libraries (bench/README.md, "REPL start-up").
@Suite struct StartupLinkTests {
    static let readelfFound: Bool = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains {
        FileManager.default.isExecutableFile(atPath: "\($0)/readelf")
    }

    @Test(.enabled(if: readelfFound, "readelf (binutils) is not on PATH: the check reads the binary's dynamic section"))
    func theBinaryDoesNotLoadLibsecretOrGLibAtStart() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        let dynamic = try r.run("readelf", ["--dynamic", "--wide", VeinRunner.binary])
        try #require(dynamic.status == 0, "readelf failed: \(dynamic.stderr)")
        let needed = dynamic.stdout.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        // A binary with no NEEDED entries at all (say, readelf's format changed) would pass vacuously.
        try #require(needed.contains { $0.contains("libc.so") }, "no NEEDED entry for libc in:\n\(dynamic.stdout)")
        let loadedOnlyForTheKeyring = needed.filter { line in
            ["libsecret", "libglib", "libgio", "libgobject", "libgcrypt"].contains { line.contains($0) }
        }
        #expect(loadedOnlyForTheKeyring.isEmpty, "linked at start: \(loadedOnlyForTheKeyring.joined(separator: "; "))")
    }

    /// unshare(1) may make a private mount namespace here (root, or user namespaces allowed).
    static let privateMountsAllowed: Bool = {
        guard let r = try? VeinRunner() else { return false }
        defer { r.cleanUp() }
        return (try? r.run("unshare", ["--mount", "--propagation", "private", "true"]).status) == 0
    }()

    /// Without libsecret on the system, the keyring is a key source that is not available (exit 69), as when
    /// no Secret Service answers: never a crash at start, never "no key" read as a reason to make one.
    @Test(.enabled(if: privateMountsAllowed, "unshare --mount is not permitted: the test hides libsecret in a private mount namespace"))
    func withoutLibsecretTheKeyringIsUnavailable() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try "".write(toFile: r.path("empty.so"), atomically: true, encoding: .utf8)
        // An empty file mounted over libsecret, in this process's own mount namespace only.
        let result = try r.run("unshare", ["--mount", "--propagation", "private", "bash", "-c", """
            lib=$(ldconfig -p | awk '/libsecret-1\\.so\\.0 /{print $NF; exit}')
            [ -n "$lib" ] || { echo "libsecret-1.so.0 is not installed" >&2; exit 3; }
            mount --bind empty.so "$lib" || exit 4
            exec '\(VeinRunner.binary)' create s.vein --schema '\(VeinRunner.exampleManifest)'
            """])
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("(the Secret Service is not available: no Secret Service library: "))
        #expect(!FileManager.default.fileExists(atPath: r.path("s.vein")))
    }
}
