import Foundation
import Vein

/// Standard error that leads into a file the command line names: `vein export STORE --key-file k -o out.json
/// 2>> k`. Every message would be appended to that file, a store, its -wal or its key file, and a raw key
/// followed by a line of text reads as a passphrase: the store would then say "wrong key". Decided before
/// the arguments are parsed (a usage error is a message too) by the same `WriteGuard` as every other write;
/// vein then does nothing and writes nothing, not even the refusal, which would go to the same file.
enum StandardErrorCheck {
    /// Whether standard error writes into a file named by one of `arguments` (a word, or the value of
    /// `--option=VALUE`), the files SQLite keeps beside it, or its pending key (`FILE.pending`).
    static func leadsIntoANamedFile(_ arguments: [String]) -> Bool {
        var info = stat()
        // A terminal or a pipe is not a file a word can name.
        guard fstat(STDERR_FILENO, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return false }
        var guarding = WriteGuard()
        for word in arguments {
            let path = word.hasPrefix("--") ? word.split(separator: "=", maxSplits: 1).dropFirst().first.map(String.init) : word
            guard let path, !path.isEmpty else { continue }
            // SQLite keeps a store's -wal beside its real path when the word is a symbolic link to it.
            for spelling in Set([path, (try? FileSystem.realPath(path)) ?? path]) {
                guarding.protectDatabase(spelling, name: path)
                guarding.protect(KeyFile.pendingPath(for: spelling), as: "the pending key file of \(path)", consequence: "a key is kept there")
            }
        }
        do {
            try guarding.check(descriptor: STDERR_FILENO, name: "standard error")
            return false
        } catch {
            return true
        }
    }
}
