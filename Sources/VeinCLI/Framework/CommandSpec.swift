/// A declarative description of one command: the single source from which argument parsing, `--help`,
/// the man pages and the shell completions are all produced (so they cannot drift apart).
public struct CommandSpec: Sendable {
    public var name: String
    /// One line: shown in command lists and as the man page's NAME.
    public var abstract: String
    /// Paragraphs shown in `--help` and the man page's DESCRIPTION.
    public var discussion: String
    public var arguments: [ArgumentSpec]
    public var options: [OptionSpec]
    public var subcommands: [CommandSpec]
    /// `(command line, what it does)` pairs for EXAMPLES.
    public var examples: [(String, String)]
    /// Further sections after the description, `(TITLE, text)`: own headings in help and the man page.
    public var sections: [(title: String, text: String)]
    public var run: (@Sendable (Invocation) throws -> Void)?

    /// `arguments` and `options` are the keys the command's `run` reads them with (`OptionKey`).
    public init(name: String, abstract: String, discussion: String = "", arguments: [any CommandDeclaration<ArgumentSpec>] = [],
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
    public var allOptions: [OptionSpec] { options + [SharedOptions.help.spec] }

    public func option(named long: String) -> OptionSpec? { allOptions.first { $0.long == long } }
    public func option(short: Character) -> OptionSpec? { allOptions.first { $0.short == short } }
    public func subcommand(_ name: String) -> CommandSpec? { subcommands.first { $0.name == name } }
}

/// How a shell should complete a value.
public enum CompletionKind: Equatable, Sendable {
    case none
    case file
    /// Files ending in one of these extensions (plus directories to descend into).
    case fileWithExtensions([String])
    case directory
    case choices([String])
    case commandNames
}

public struct ArgumentSpec: Sendable {
    public var name: String
    public var help: String
    public var completion: CompletionKind
    public var isOptional: Bool

    /// Declared through `ArgumentKey`, which gives the command its typed lookup.
    init(_ name: String, help: String, completion: CompletionKind = .file, isOptional: Bool = false) {
        self.name = name
        self.help = help
        self.completion = completion
        self.isOptional = isOptional
    }
}

public struct OptionSpec: Sendable {
    public var long: String
    public var short: Character?
    /// The value's placeholder (`FILE`); nil for a flag that takes no value.
    public var valueName: String?
    public var help: String
    public var completion: CompletionKind
    public var isRepeatable: Bool
    /// The command cannot run without it (shown without brackets, enforced by the parser).
    public var isRequired: Bool

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

    public var isFlag: Bool { valueName == nil }

    /// `-o, --output FILE`
    public var synopsis: String {
        var text = short.map { "-\($0), " } ?? ""
        text += "--\(long)"
        if let valueName { text += " \(valueName)" }
        return text
    }
}
