/// The command line as a command spec reads it. Commands read it through the keys their spec declares
/// (`arguments[SharedOptions.quiet]`); the framework (help, argument order, output guards) walks the spec
/// and reads by `OptionSpec` and `ArgumentSpec`.
package struct ParsedArguments: Sendable {
    /// Keyed by argument name and by option name; only the parser and `ArgumentOrder` write these.
    var positionals: [String: String] = [:]
    var values: [String: [String]] = [:]
    var flags: Set<String> = []

    package subscript<Spec, Value>(key: CommandKey<Spec, Value>) -> Value { key.read(self) }

    func isGiven(_ option: OptionSpec) -> Bool { flags.contains(option.long) }
    func values(of option: OptionSpec) -> [String] { values[option.long] ?? [] }
    func value(of argument: ArgumentSpec) -> String? { positionals[argument.name] }
}
