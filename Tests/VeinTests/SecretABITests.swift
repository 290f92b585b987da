import Foundation
import Testing

/// Sources/CVeinSecret declares the part of libsecret's ABI it calls (secret_abi.h) instead of including
/// libsecret's headers, so that SwiftPM does not link libsecret (and GLib, GObject, GIO) into every `vein`
/// process; the library is opened when a keyring is used. Tests/Scripts/secret-abi-check.c holds those
/// declarations against the real headers from libsecret-1-dev.
@Suite struct SecretABITests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static let toolsFound: Bool = ["cc", "pkg-config"].allSatisfy { tool in
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)")
        }
    }

    @Test(.enabled(if: toolsFound, "cc or pkg-config is not on PATH: the check compiles against libsecret's headers"))
    func theShimsDeclarationsAreLibsecretsOwn() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.currentDirectoryURL = Self.root
        process.arguments = ["-c", """
            flags=$(pkg-config --cflags libsecret-1) || exit 3
            cc -fsyntax-only -Wall -Werror $flags -I Sources/CVeinSecret Tests/Scripts/secret-abi-check.c
            """]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "secret_abi.h disagrees with libsecret's headers:\n\(output)")
    }
}
