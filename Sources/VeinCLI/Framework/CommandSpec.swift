/// A declarative description of one command: the single source from which argument parsing, `--help`,
/// the man pages and the shell completions are all produced (so they cannot drift apart).
package struct CommandSpec: Sendable {
    package var name: String
    /// One line: shown in command lists and as the man page's NAME.
    package var abstract: String
    /// Paragraphs shown in `--help` and the man page's DESCRIPTION.
    package var discussion: String
    package var arguments: [ArgumentSpec]
    package var options: [OptionSpec]
    package var subcommands: [CommandSpec]
    /// `(command line, what it does)` pairs for EXAMPLES.
    package var examples: [(String, String)]
    /// Further sections after the description, `(TITLE, text)`: own headings in help and the man page.
    package var sections: [(title: String, text: String)]
    package var run: (@Sendable (Invocation) throws -> Void)?

    /// `arguments` and `options` are the keys the command's `run` reads them with (`OptionKey`).
    package init(name: String, abstract: String, discussion: String = "", arguments: [any CommandDeclaration<ArgumentSpec>] = [],
                options: [any CommandDeclaration<OptionSpec>] = [], subcommands: [CommandSpec] = [], examples: [(String, String)] = [],
                sections: [(title: String, text: String)] = [], run: (@Sendable (Invocation) throws -> Void)? = nil) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        // Closures, not `\.spec`: a key path through these existentials crashes Swift 6.3 (SILGen).
        self.arguments = arguments.map { $0.spec }
        self.options = options.map { $0.spec }
        self.subcommands = subcommands
        self.examples = examples
        self.sections = sections
        self.run = run
    }

    /// The options a user can write, including the `--help` every command takes.
    package var allOptions: [OptionSpec] { options + [SharedOptions.help.spec] }

    package func option(named long: String) -> OptionSpec? { allOptions.first { $0.long == long } }
    package func option(short: Character) -> OptionSpec? { allOptions.first { $0.short == short } }
    package func subcommand(_ name: String) -> CommandSpec? { subcommands.first { $0.name == name } }
}

/// How a shell should complete a value.
package enum CompletionKind: Equatable, Sendable {
    case none
    case file
    /// Files ending in one of these extensions (plus directories to descend into).
    case fileWithExtensions([String])
    case directory
    case choices([String])
    case commandNames
}

package struct ArgumentSpec: Sendable {
    package var name: String
    package var help: String
    package var completion: CompletionKind
    package var isOptional: Bool

    /// Declared through `ArgumentKey`, which gives the command its typed lookup.
    init(_ name: String, help: String, completion: CompletionKind = .file, isOptional: Bool = false) {
        self.name = name
        self.help = help
        self.completion = completion
        self.isOptional = isOptional
    }
}

package struct OptionSpec: Sendable {
    package var long: String
    package var short: Character?
    /// The value's placeholder (`FILE`); nil for a flag that takes no value.
    package var valueName: String?
    package var help: String
    package var completion: CompletionKind
    package var isRepeatable: Bool
    /// The command cannot run without it (shown without brackets, enforced by the parser).
    package var isRequired: Bool

    /// Declared through `OptionKey`, which gives the command its typed lookup.
    init(_ long: String, short: Character? = nil, value: String? = nil, help: String,
                completion: CompletionKind = .none, repeatable: Bool = false, required: Bool = false) {
        self.long = long
        self.short = short
        self.valueName = value
        self.help = help
        self.completion = completion
        self.isRepeatable = repeatable
        self.isRequired = required
    }

    package var isFlag: Bool { valueName == nil }

    /// `-o, --output FILE`
    package var synopsis: String {
        var text = short.map { "-\($0), " } ?? ""
        text += "--\(long)"
        if let valueName { text += " \(valueName)" }
        return text
    }
}
