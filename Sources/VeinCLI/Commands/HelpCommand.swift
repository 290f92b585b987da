enum HelpCommand {
    static let command: ArgumentKey<String?> = .optional("COMMAND", help: "The command (for example 'create').", completion: .commandNames)
    /// `vein help key rotate`, as the command itself is written.
    static let subcommand: ArgumentKey<String?> = .optional("SUBCOMMAND", help: "A subcommand of COMMAND (for example 'rotate' of 'key').",
                                                            completion: .none)

    static let spec: CommandSpec = CommandSpec(
        name: "help",
        abstract: "Show help for vein or one of its commands",
        arguments: [command, subcommand],
        run: { invocation in
            let words = [invocation[command], invocation[subcommand]].flatMap { word in
                word.map { $0.split(separator: " ").map(String.init) } ?? []
            }
            invocation.console.outText(try VeinCommandLine.help(for: words))
        })
}
