enum HelpCommand {
    static let spec: CommandSpec = CommandSpec(
        name: "help",
        abstract: "Show help for vein or one of its commands",
        arguments: [ArgumentSpec("COMMAND", help: "The command (for example 'create').", completion: .commandNames,
                                 isOptional: true)],
        run: { invocation in
            let words = invocation.arguments.argument("COMMAND").map { $0.split(separator: " ").map(String.init) } ?? []
            invocation.console.outText(try VeinCommandLine.help(for: words))
        })
}
