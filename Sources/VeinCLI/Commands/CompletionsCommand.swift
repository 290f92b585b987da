enum CompletionsCommand {
    static let shell: ArgumentKey<String> = .required("SHELL", help: "bash, zsh or fish.",
                                                      completion: .choices(CompletionRenderer.Shell.allCases.map(\.rawValue)))

    static let spec: CommandSpec = CommandSpec(
        name: "completions",
        abstract: "Print the shell completion script for bash, zsh or fish",
        discussion: """
            Prints a completion script generated from vein's command table. Install it with, for example:

              vein completions bash > /etc/bash_completion.d/vein
              vein completions zsh > "${fpath[1]}/_vein"
              vein completions fish > ~/.config/fish/completions/vein.fish
            """,
        arguments: [shell],
        run: { invocation in
            let name = invocation[shell]
            guard let shell = CompletionRenderer.Shell(rawValue: name) else {
                throw UsageError(message: "unknown shell '\(name)' (expected bash, zsh or fish)", command: "completions")
            }
            invocation.console.outText(CompletionRenderer.script(for: shell, root: CommandTable.root))
        })
}
