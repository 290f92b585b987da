/// The kinds of option a command declares (`CommandKey`), each read in its own type.
extension CommandKey where Spec == OptionSpec, Value == Bool {
    /// An option that takes no value: true when given.
    static func flag(_ long: String, short: Character? = nil, help: String) -> CommandKey {
        let spec = OptionSpec(long, short: short, help: help)
        return CommandKey(spec: spec) { $0.isGiven(spec) }
    }
}

extension CommandKey where Spec == OptionSpec, Value == String? {
    /// An option with one value, or nil when it is not given.
    static func value(_ long: String, short: Character? = nil, value name: String, help: String,
                      completion: CompletionKind = .none) -> CommandKey {
        let spec = OptionSpec(long, short: short, value: name, help: help, completion: completion)
        return CommandKey(spec: spec) { $0.values(of: spec).last }
    }
}

extension CommandKey where Spec == OptionSpec, Value == String {
    /// An option the command cannot run without: the parser refuses a command line that leaves it out.
    static func required(_ long: String, value name: String, help: String, completion: CompletionKind = .none) -> CommandKey {
        let spec = OptionSpec(long, value: name, help: help, completion: completion, required: true)
        return CommandKey(spec: spec) { $0.values(of: spec).last ?? "" }
    }
}

extension CommandKey where Spec == OptionSpec, Value == [String] {
    /// An option that may be given several times: its values in the order given.
    static func repeatable(_ long: String, value name: String, help: String, completion: CompletionKind = .none) -> CommandKey {
        let spec = OptionSpec(long, value: name, help: help, completion: completion, repeatable: true)
        return CommandKey(spec: spec) { $0.values(of: spec) }
    }
}

extension CommandKey where Spec == OptionSpec {
    /// An option whose value is one of `Choice`'s cases (the parser refuses any other), or nil when it is
    /// not given. Completions offer the cases.
    static func choice<Choice>(_ long: String, value name: String, help: String, of: Choice.Type) -> CommandKey
    where Value == Choice?, Choice: RawRepresentable & CaseIterable & Sendable, Choice.RawValue == String {
        let spec = OptionSpec(long, value: name, help: help, completion: .choices(Choice.allCases.map(\.rawValue)))
        return CommandKey(spec: spec) { $0.values(of: spec).last.flatMap(Choice.init(rawValue:)) }
    }
}
