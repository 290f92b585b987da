/// The positional arguments a command declares (`CommandKey`): a required one reads as a String (the
/// parser refuses a command line without it), an optional one as String?.
extension CommandKey where Spec == ArgumentSpec, Value == String {
    static func required(_ name: String, help: String, completion: CompletionKind = .file) -> CommandKey {
        let spec = ArgumentSpec(name, help: help, completion: completion)
        return CommandKey(spec: spec) { $0.value(of: spec) ?? "" }
    }
}

extension CommandKey where Spec == ArgumentSpec, Value == String? {
    static func optional(_ name: String, help: String, completion: CompletionKind = .file) -> CommandKey {
        let spec = ArgumentSpec(name, help: help, completion: completion, isOptional: true)
        return CommandKey(spec: spec) { $0.value(of: spec) }
    }
}
