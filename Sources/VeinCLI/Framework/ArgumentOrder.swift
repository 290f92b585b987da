import Foundation
import Vein

/// Arguments written in the wrong order: `vein import data.json blog.vein`, `vein query 'count Post' blog.vein`,
/// `vein backup new.vein blog.vein`, `vein migrate plan.json5 --plan blog.vein`. When a command fails on
/// its store argument (no such file, a JSON or text file) or on reading a store as text, and another of
/// its arguments names what looks like a store while the store argument does not, the error is a usage
/// error whose hint shows the command with the two swapped. One place for every command: it reads the
/// command's spec, not its code.
enum ArgumentOrder {
    /// The error to report instead of `error`, or nil to report `error` itself.
    static func mistake(behind error: Error, spec: CommandSpec, path: [String], arguments: ParsedArguments) -> CommandFailure? {
        let report = ErrorReporting.report(error)
        let base = report.messages.first ?? "\(error)"
        if let storeArgument = spec.arguments.first, StandardStreams.storeArguments.contains(storeArgument.name),
           let store = arguments.value(of: storeArgument), !Store.mightBeStore(store) {
            if let swap = swapCandidate(for: error, spec: spec, arguments: arguments, store: store) {
                var swapped = arguments
                swapped.positionals[storeArgument.name] = swap.value
                switch swap.place {
                case .argument(let name): swapped.positionals[name] = store
                case .option(let long): swapped.values[long] = [store]
                }
                return CommandFailure(base, hint: "the store comes first: " + commandLine(spec: spec, path: path, arguments: swapped),
                                      exitCode: .usage)
            }
            // `vein query 'count Post' missing.vein`: no store to swap with, but the first argument is no path.
            if case StoreError.notFound(store) = error, looksLikeText(store),
               let other = spec.arguments.dropFirst().first(where: { $0.completion == .none }) {
                let usage = (["vein"] + path + spec.arguments.map(\.name)).joined(separator: " ")
                return CommandFailure(base, hint: "\(shellWord(store)) looks like a \(other.name.lowercased()), not a store: "
                                      + "the store comes first (\(usage))", exitCode: .usage)
            }
        }
        if let hint = storeReadAsText(error, spec: spec, arguments: arguments) {
            return CommandFailure(base, hint: hint, exitCode: report.exitCode)
        }
        return nil
    }

    /// `vein migrate check blog.vein`, `vein create new.vein --schema blog.vein`: a store where text is
    /// read, and nothing to swap it with. The hint says what the argument or option is for.
    private static func storeReadAsText(_ error: Error, spec: CommandSpec, arguments: ParsedArguments) -> String? {
        guard case FileError.notText(let path) = error, Store.mightBeStore(path) else { return nil }
        // A store argument is never read as text: `vein import b.vein b.vein` names FILE.
        let argument = spec.arguments.first { !StandardStreams.storeArguments.contains($0.name) && arguments.value(of: $0) == path }
            .map { ($0.name, $0.help) }
        let option = spec.options.first { arguments.values(of: $0).last == path }.map { ("--\($0.long)", $0.help) }
        guard let (name, help) = argument ?? option else { return nil }
        let what = help.prefix(1).lowercased() + help.dropFirst().prefix { $0 != "." && $0 != "(" }.trimmingCharacters(in: .whitespaces)
        return "\(path) looks like a store; \(name) is \(what)"
    }

    /// Where the value that belongs in the store's place was written.
    private enum Place {
        case argument(String)
        case option(String)
    }

    /// The argument or file option that belongs in the store's place, judged by what failed: the store
    /// argument missing or text while another argument looks like a store; another argument read as text
    /// that is a store while the store argument is text; or a missing file to read while the store argument
    /// is a file to read (`import data.json new.vein --create`).
    private static func swapCandidate(for error: Error, spec: CommandSpec, arguments: ParsedArguments, store: String) -> (place: Place, value: String)? {
        var candidates: [(place: Place, value: String)] = []
        for argument in spec.arguments.dropFirst() {
            if let value = arguments.value(of: argument) { candidates.append((.argument(argument.name), value)) }
        }
        for option in spec.options where isFile(option.completion) {
            if let value = arguments.values(of: option).last { candidates.append((.option(option.long), value)) }
        }
        candidates.removeAll { $0.value == store }
        // A command that creates its store wants a new path there, never an existing store.
        let creates = spec.name == CreateCommand.spec.name || arguments[ImportCommand.create]
        switch error {
        case StoreError.notFound(store), StoreError.textFile(store, _):
            return candidates.first { Store.mightBeStore($0.value) }
        case FileError.notText(let path) where !creates && TextContent.of(file: store) != nil:
            return candidates.first { $0.value == path && Store.mightBeStore(path) }
        case FileError.notFound(let path) where TextContent.of(file: store) != nil:
            return candidates.first { $0.value == path }
        default:
            return nil
        }
    }

    private static func isFile(_ completion: CompletionKind) -> Bool {
        switch completion {
        case .file, .fileWithExtensions: return true
        default: return false
        }
    }

    /// Whitespace, quotes or brackets: a statement or an expression, not a file name someone would type.
    private static func looksLikeText(_ value: String) -> Bool {
        value.contains { $0.isWhitespace || "\"'()=<>".contains($0) }
    }

    /// The command line as the user can paste it: positionals in order, then the options given, in the
    /// command's order.
    private static func commandLine(spec: CommandSpec, path: [String], arguments: ParsedArguments) -> String {
        var words = ["vein"] + path + spec.arguments.compactMap { arguments.value(of: $0) }.map(shellWord)
        for option in spec.options {
            if option.isFlag {
                if arguments.isGiven(option) { words.append("--\(option.long)") }
            } else {
                for value in arguments.values(of: option) { words += ["--\(option.long)", shellWord(value)] }
            }
        }
        return words.joined(separator: " ")
    }

    /// `value` quoted for a POSIX shell where it needs quoting.
    static func shellWord(_ value: String) -> String {
        let plain = !value.isEmpty && value.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "_-./:@%+,=".unicodeScalars.contains($0)) }
        return plain ? value : "'" + value.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
