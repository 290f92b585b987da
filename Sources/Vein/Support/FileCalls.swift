import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The file-system calls outside SQLite that "complete or absent" rests on: creating, writing, syncing and
/// closing a file, changing its attributes, syncing its directory, linking, renaming and removing. Vein
/// makes them here only, so that a test can fail any one of them, as its test VFS fails SQLite's calls
/// (the fault-injection loop in Tests/VeinCLITests). The injector exists in debug builds only (Package.swift
/// defines VEIN_TEST_HOOKS for them); with none set a call costs one atomic load there, nothing in release.
///
/// Each function answers as the C call does: its result, or -1 with `errno` set.
package enum FileCalls {
    /// The calls; the numbers are the test VFS's (`vein_file_call`).
    package enum Kind: Int32, Sendable {
        case create = 1, write, sync, syncDirectory, close, attributes, link, rename, unlink
    }

    /// What an injector makes of one call.
    package enum Decision: Sendable, Equatable {
        case proceed
        /// Fails with this errno, doing nothing.
        case fail(errno: Int32)
        /// Reports success without doing it: the power is off, the disk never sees the call.
        case skip
    }

    /// Decides each call from its kind and the path it concerns.
    package typealias Injector = @Sendable (Kind, String) -> Decision

    #if VEIN_TEST_HOOKS
    private static let injecting = Atomic<Bool>(false)
    private static let injector = LockedClosure<Injector>()

    /// Sets (or with nil removes) the process's injector. For tests only: nothing in Vein sets one.
    package static func inject(_ newInjector: Injector?) {
        injector.current = newInjector
        injecting.store(newInjector != nil, ordering: .releasing)
    }

    private static func decide(_ kind: Kind, _ path: String) -> Decision {
        guard injecting.load(ordering: .acquiring) else { return .proceed }
        guard let injector = injector.current else { return .proceed }
        return injector(kind, path)
    }
    #else
    @inline(__always)
    private static func decide(_ kind: Kind, _ path: String) -> Decision { .proceed }
    #endif

    /// Runs `call` unless the injector fails or skips it (`skipped` is the answer of a skipped call).
    private static func perform(_ kind: Kind, _ path: String, skipped: Int32 = 0, _ call: () -> Int32) -> Int32 {
        switch decide(kind, path) {
        case .proceed: return call()
        case .fail(let code):
            errno = code
            return -1
        case .skip: return skipped
        }
    }

    /// open(2) with O_CREAT: a new file's descriptor.
    package static func create(_ path: String, flags: Int32, mode: mode_t) -> Int32 {
        // A skipped create would have no descriptor to return: files are made even when the power is off.
        switch decide(.create, path) {
        case .fail(let code):
            errno = code
            return -1
        case .proceed, .skip: return open(path, flags | O_CREAT, mode)
        }
    }

    /// write(2) of `count` bytes at `bytes` to the file at `path`.
    package static func write(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int, path: String) -> Int {
        switch decide(.write, path) {
        case .proceed: return Glibc.write(descriptor, bytes, count)
        case .fail(let code):
            errno = code
            return -1
        case .skip: return count
        }
    }

    package static func sync(_ descriptor: Int32, path: String) -> Int32 {
        perform(.sync, path) { fsync(descriptor) }
    }

    /// fsync(2) of a directory's descriptor: makes the names created, linked or renamed in it durable.
    package static func syncDirectory(_ descriptor: Int32, path: String) -> Int32 {
        perform(.syncDirectory, path) { fsync(descriptor) }
    }

    /// close(2) of a descriptor written to: its result is the last word on the writes (NFS reports there).
    /// A failed or skipped close still closes the descriptor.
    package static func close(_ descriptor: Int32, path: String) -> Int32 {
        let decision = decide(.close, path)
        let result = Glibc.close(descriptor)
        switch decision {
        case .proceed: return result
        case .fail(let code):
            errno = code
            return -1
        case .skip: return 0
        }
    }

    package static func changeOwner(_ descriptor: Int32, _ owner: uid_t, _ group: gid_t, path: String) -> Int32 {
        perform(.attributes, path) { fchown(descriptor, owner, group) }
    }

    package static func changeMode(_ descriptor: Int32, _ mode: mode_t, path: String) -> Int32 {
        perform(.attributes, path) { fchmod(descriptor, mode) }
    }

    package static func link(_ existing: String, _ new: String) -> Int32 {
        perform(.link, new) { Glibc.link(existing, new) }
    }

    package static func rename(_ old: String, _ new: String) -> Int32 {
        perform(.rename, new) { Glibc.rename(old, new) }
    }

    package static func unlink(_ path: String) -> Int32 {
        perform(.unlink, path) { Glibc.unlink(path) }
    }
}
