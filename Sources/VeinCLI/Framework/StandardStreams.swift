import Foundation
import Vein

/// Standard output and standard error that lead into a file the command line names: `vein key status STORE
/// --key-file k >> k`, `vein export STORE --key-file k -o out.json 2>> k`. The shell opened the file before
/// vein ran, so no check of a path vein writes sees it: what vein prints would be appended to the store,
/// its -wal, its key file or a file the command reads, and a raw key followed by a line of text reads as a
/// passphrase (the store then says "wrong key"). Decided for every command before it runs, by the same
/// `WriteGuard` as every path vein writes.
enum StandardStreams {
    /// Arguments that name a store: its file and the files SQLite keeps beside it are protected.
    static let storeArguments: Set<String> = ["STORE", "SRC"]
    /// Arguments (besides files with known extensions: manifests, plans, fixtures) that name a file the
    /// command reads.
    static let inputArguments: Set<String> = ["FILE"]

    /// Whether standard error writes into a named file. Then vein must write nothing at all, not even the
    /// refusal, which would go to the same file. Also when the arguments do not parse (the usage error would
    /// be written there): every word is then taken for a store and a key file.
    static func errorLeadsIntoANamedFile(_ arguments: [String]) -> Bool {
        guard isRegularFile(STDERR_FILENO) else { return false }
        do {
            try namedFiles(arguments, everyWordIfUnparsed: true).check(descriptor: STDERR_FILENO, name: "standard error")
            return false
        } catch {
            return true
        }
    }

    /// Throws when standard output writes into a named file. Nothing is printed on a usage error, so
    /// arguments that do not parse name nothing here.
    static func checkOutput(_ arguments: [String]) throws(WriteGuardError) {
        guard isRegularFile(STDOUT_FILENO) else { return }
        try namedFiles(arguments, everyWordIfUnparsed: false).check(descriptor: STDOUT_FILENO, name: "standard output")
    }

    /// A terminal, a pipe or a device is not a file the command line can name (`-o /dev/stdout` writes into
    /// standard output on purpose).
    private static func isRegularFile(_ descriptor: Int32) -> Bool {
        var info = stat()
        return fstat(descriptor, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    /// The stores (with their -wal, -shm and -journal), the key file (and its pending key) and the input
    /// files the parsed command line names.
    static func namedFiles(_ arguments: [String], everyWordIfUnparsed: Bool) -> WriteGuard {
        var guarding = WriteGuard()
        let (spec, path, rest) = VeinCommandLine.resolve(arguments)
        guard spec.run != nil, let parsed = try? ArgumentParser.parse(Array(rest), spec: spec, commandPath: path.joined(separator: " ")) else {
            guard everyWordIfUnparsed else { return guarding }
            for word in arguments {
                let value = word.hasPrefix("--") ? word.split(separator: "=", maxSplits: 1).dropFirst().first.map(String.init) : word
                guard let value, !value.isEmpty, value != "-" else { continue }
                guarding.protectStore(at: value)
                guarding.protectKeyFile(value)
            }
            return guarding
        }
        func protectInput(_ value: String) {
            guarding.protect(value, as: "\(value), which this command reads", consequence: "vein writes nothing into a file it reads")
        }
        for argument in spec.arguments {
            guard let value = parsed.value(of: argument), value != "-" else { continue }
            if storeArguments.contains(argument.name) { guarding.protectStore(at: value) }
            if inputArguments.contains(argument.name) || argument.completion.namesFileType { protectInput(value) }
        }
        for option in spec.options {
            for value in parsed.values(of: option) where value != "-" {
                if option.long == SharedOptions.keyFile.spec.long { guarding.protectKeyFile(value) }
                if option.completion.namesFileType { protectInput(value) }
            }
        }
        return guarding
    }
}

extension CompletionKind {
    /// Files of a known type (manifests, plans, fixtures): every such argument and option is one vein reads.
    var namesFileType: Bool {
        if case .fileWithExtensions = self { return true }
        return false
    }
}
