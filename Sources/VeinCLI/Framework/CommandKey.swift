/// An option or argument as a command declares it and reads it, in the spirit of swift-argument-parser
/// where a property is its option: the declaration holds the spec that parsing, help, the man pages and
/// the completions are made from, and its type says what a command gets back
/// (`invocation[CreateCommand.plaintext]` is a Bool, `invocation[ExportCommand.model]` a [String]). A
/// command reads its command line only through keys, so a misspelt option is a compile error rather than
/// an option that is silently never given.
package struct CommandKey<Spec: Sendable, Value>: CommandDeclaration {
    package let spec: Spec
    /// What the parsed command line holds for this key, in its type.
    let read: @Sendable (ParsedArguments) -> Value
}

/// What a command's spec lists: any key, whatever its value's type.
package protocol CommandDeclaration<Spec>: Sendable {
    associatedtype Spec
    var spec: Spec { get }
}

package typealias OptionKey<Value> = CommandKey<OptionSpec, Value>
package typealias ArgumentKey<Value> = CommandKey<ArgumentSpec, Value>
