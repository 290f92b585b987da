import Foundation
import Vein

/// The places where the crash and concurrency tests stop or hold `vein` from outside, through the
/// environment. They exist only in debug builds (Package.swift defines VEIN_TEST_HOOKS for those): a
/// released `vein` has no variable that makes it kill itself or wait, and not even the variables' names
/// (scripts/check-release-hooks).
enum TestHooks {
    #if VEIN_TEST_HOOKS
    /// VEIN_TEST_ROTATE_STOP=step makes `vein key rotate` stop itself (SIGKILL) at that step.
    static func rotationStop(_ environment: [String: String]) -> (@Sendable (KeyRotation.Step) -> Void)? {
        guard let stop = environment["VEIN_TEST_ROTATE_STOP"].flatMap(KeyRotation.Step.init(rawValue:)) else { return nil }
        return { step in if step == stop { kill(getpid(), SIGKILL) } }
    }

    /// VEIN_TEST_BACKUP_GATE=FILE: once its read snapshot is taken, `vein backup` creates FILE.reached and
    /// waits (up to a minute) until FILE exists, so that other processes can write meanwhile.
    static func backupGate(_ environment: [String: String]) -> (() throws -> Void)? {
        guard let gate = environment["VEIN_TEST_BACKUP_GATE"], !gate.isEmpty else { return nil }
        return {
            FileManager.default.createFile(atPath: gate + ".reached", contents: nil)
            for _ in 0..<6_000 where !FileManager.default.fileExists(atPath: gate) { usleep(10_000) }
        }
    }
    #else
    static func rotationStop(_ environment: [String: String]) -> (@Sendable (KeyRotation.Step) -> Void)? { nil }
    static func backupGate(_ environment: [String: String]) -> (() throws -> Void)? { nil }
    #endif
}
