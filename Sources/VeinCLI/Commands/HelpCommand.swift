enum HelpCommand {
    static let spec: CommandSpec = CommandSpec(
        name: "help",
        abstract: "Show help for vein or one of its commands",
        arguments: [ArgumentSpec("COMMAND", help: "The command (for example 'create').", completion: .commandNames,
                                 isOptional: true),
                    // `vein help key rotate`, as the command itself is written.
                    ArgumentSpec("SUBCOMMAND", help: "A subcommand of COMMAND (for example 'rotate' of 'key').", completion: .none,
                                 isOptional: true)],
        run: { invocation in
            let words = ["COMMAND", "SUBCOMMAND"].flatMap { name in
                invocation.arguments.argument(name).map { $0.split(separator: " ").map(String.init) } ?? []
            }
            invocation.console.outText(try VeinCommandLine.help(for: words))
        })
}
