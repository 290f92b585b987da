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
}
