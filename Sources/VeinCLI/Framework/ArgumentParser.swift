import Vein

/// A command line that does not fit the command's description (exit 64).
package struct UsageError: Error, Equatable, Sendable {
    package let message: String
    /// The command path (`migrate status`) whose help explains the right usage.
    package let command: String
}

enum ArgumentParser {
    /// Parses `args` (after the command words) against `spec`. `--` ends options; `-` alone is a value.
    static func parse(_ args: [String], spec: CommandSpec, commandPath: String) throws -> ParsedArguments {
        var result = ParsedArguments()
        var positionals: [String] = []
        var i = 0
        func fail(_ message: String) -> UsageError { UsageError(message: message, command: commandPath) }

        func record(_ option: OptionSpec, value: String?) throws {
            if option.isFlag {
                result.flags.insert(option.long)
            } else {
                guard let value else { throw fail("option --\(option.long) needs a value (\(option.valueName!))") }
                if !option.isRepeatable, result.values[option.long] != nil {
                    throw fail("option --\(option.long) given twice")
                }
                if case .choices(let choices) = option.completion, !choices.contains(value) {
                    throw fail("--\(option.long) must be one of \(choices.joined(separator: ", ")), not \"\(value)\"")
                }
                result.values[option.long, default: []].append(value)
            }
        }

        var optionsEnded = false
        while i < args.count {
            let arg = args[i]
            i += 1
            if optionsEnded || arg == "-" || !arg.hasPrefix("-") {
                positionals.append(arg)
            } else if arg == "--" {
                optionsEnded = true
            } else if arg.hasPrefix("--") {
                var name = String(arg.dropFirst(2))
                var inlineValue: String?
                if let eq = name.firstIndex(of: "=") {
                    inlineValue = String(name[name.index(after: eq)...])
                    name = String(name[..<eq])
                }
                guard let option = spec.option(named: name) else {
                    let hint = Suggestion.closest(to: name, in: spec.allOptions.map(\.long)).map { " (did you mean --\($0)?)" }
                    throw fail("unknown option --\(name)\(hint ?? "")")
                }
                if option.isFlag {
                    if inlineValue != nil { throw fail("option --\(name) takes no value") }
                    try record(option, value: nil)
                } else {
                    let value = inlineValue ?? (i < args.count ? args[i] : nil)
                    if inlineValue == nil, value != nil { i += 1 }
                    try record(option, value: value)
                }
            } else {
                // Short options: -q, -o FILE, -oFILE; flags may be grouped (-qh).
                var chars = Array(arg.dropFirst())
                while !chars.isEmpty {
                    let c = chars.removeFirst()
                    guard let option = spec.option(short: c) else { throw fail("unknown option -\(c)") }
                    if option.isFlag {
                        try record(option, value: nil)
                    } else {
                        let value = !chars.isEmpty ? String(chars) : (i < args.count ? args[i] : nil)
                        if chars.isEmpty, value != nil { i += 1 }
                        chars = []
                        try record(option, value: value)
                    }
                }
            }
        }
        if result[SharedOptions.help] { return result }
        for option in spec.options where option.isRequired && result.values[option.long] == nil {
            throw fail("missing --\(option.long) \(option.valueName ?? "")")
        }

        let required = spec.arguments.filter { !$0.isOptional }
        guard positionals.count >= required.count else {
            let missing = spec.arguments[positionals.count]
            throw fail("missing \(missing.name) (\(missing.help.prefix { $0 != "." }.lowercased()))")
        }
        guard positionals.count <= spec.arguments.count else {
            throw fail("unexpected argument \"\(positionals[spec.arguments.count])\"")
        }
        for (argument, value) in zip(spec.arguments, positionals) { result.positionals[argument.name] = value }
        return result
    }
}
