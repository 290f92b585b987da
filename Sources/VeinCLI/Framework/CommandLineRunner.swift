import Foundation
import Vein

/// Runs `vein` with its arguments: finds the command in the table, parses, runs, and reports errors.
package enum VeinCommandLine {
    package static func main(_ arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> Int32 {
        // A closed pipe (`vein export | head`) must end vein quietly, not kill it with SIGPIPE mid-write.
        signal(SIGPIPE, SIG_IGN)
        // A standard descriptor the caller closed (`>&-`) is held by /dev/null opened read-only: no file this
        // process opens (a store's temporary) can take its number and receive output meant for it, and
        // writing to it still fails (EBADF), as it should.
        for descriptor in STDIN_FILENO...STDERR_FILENO where fcntl(descriptor, F_GETFD) == -1 {
            _ = open("/dev/null", O_RDONLY | O_CLOEXEC)
        }
        // Standard error first: every refusal is written there.
        if StandardStreams.errorLeadsIntoANamedFile(arguments) { return ExitCode.cannotCreate.rawValue }
        let console = Console()
        do {
            try StandardStreams.checkOutput(arguments)
        } catch {
            return report(error, console: console)
        }
        return run(arguments, console: console)
    }

    /// The command `arguments` name (walking the command words: `key rotate STORE` → path ["key", "rotate"]),
    /// and the arguments after those words.
    static func resolve(_ arguments: [String]) -> (spec: CommandSpec, path: [String], rest: ArraySlice<String>) {
        var spec = CommandTable.root
        var path: [String] = []
        var rest = arguments[...]
        while let word = rest.first, let sub = spec.subcommand(word) {
            spec = sub
            path.append(word)
            rest = rest.dropFirst()
        }
        return (spec, path, rest)
    }

    /// Writes what went wrong to standard error and returns the exit status.
    static func report(_ error: Error, console: Console) -> Int32 {
        let report = ErrorReporting.report(error)
        for (i, message) in report.messages.enumerated() {
            console.error(message, hint: i == report.messages.count - 1 ? report.hint : nil)
        }
        return report.exitCode.rawValue
    }

    package static func run(_ arguments: [String], console: Console) -> Int32 {
        if arguments.first == "--version" || arguments.first == "-V" {
            console.out("vein \(VeinVersion.current) (SQLCipher \(Database.cipherLibraryVersion ?? "unknown"), SQLite \(Database.sqliteVersion))")
            return 0
        }
        let (spec, path, rest) = resolve(arguments)
        var parsed: ParsedArguments?
        do {
            if spec.run == nil {
                // A group (the root, `key`, `migrate`): help, or an unknown command.
                if let word = rest.first, !word.hasPrefix("-") {
                    let hint = Suggestion.closest(to: word, in: spec.subcommands.map { $0.name }).map { " (did you mean '\($0)'?)" }
                    throw UsageError(message: "unknown command '\((path + [word]).joined(separator: " "))'\(hint ?? "")",
                                     command: path.joined(separator: " "))
                }
                _ = try ArgumentParser.parse(Array(rest), spec: spec, commandPath: path.joined(separator: " "))
                console.outText(HelpRenderer.render(spec, path: path))
                return 0
            }
            let arguments = try ArgumentParser.parse(Array(rest), spec: spec, commandPath: path.joined(separator: " "))
            parsed = arguments
            if arguments[SharedOptions.help] {
                console.outText(HelpRenderer.render(spec, path: path))
                return 0
            }
            try spec.run!(Invocation(arguments: arguments, console: console, commandPath: path.joined(separator: " ")))
            return 0
        } catch {
            let mistake = parsed.flatMap { ArgumentOrder.mistake(behind: error, spec: spec, path: path, arguments: $0) }
            return report(mistake ?? error, console: console)
        }
    }

    /// Help text for a command path, as `vein help COMMAND` and `--help` print it.
    package static func help(for path: [String]) throws -> String {
        var spec = CommandTable.root
        for (i, word) in path.enumerated() {
            guard let sub = spec.subcommand(word) else {
                let hint = Suggestion.closest(to: word, in: spec.subcommands.map { $0.name }).map { " (did you mean '\($0)'?)" }
                throw UsageError(message: "no help for unknown command '\(path[...i].joined(separator: " "))'\(hint ?? "")",
                                 command: "")
            }
            spec = sub
        }
        return HelpRenderer.render(spec, path: path)
    }
}

