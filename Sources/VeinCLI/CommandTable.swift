/// Every command of `vein`, in the order help lists them. The one description from which parsing,
/// `--help`, the man pages (`man/`) and the completion scripts (`completions/`) are all produced.
package enum CommandTable {
    package static let root: CommandSpec = CommandSpec(
        name: "vein",
        abstract: "manage encrypted, schema-versioned Vein stores",
        discussion: """
            Vein stores are SQLCipher databases described by a schema manifest. vein creates them, inspects \
            and verifies them, queries and changes their objects, migrates them through a plan of schema \
            versions, exports and imports their records as JSON, rotates their keys, and copies and backs them \
            up. Keys come from --key-file, --key-env, --passphrase or VEIN_KEY (in that order: options beat the \
            environment), or from the Secret Service keyring, where vein create keeps the random key it makes.

            Results go to standard output, errors to standard error as 'vein: error: …'. Run \
            'vein help COMMAND' for a command's options.
            """,
        subcommands: [
            CreateCommand.spec,
            InfoCommand.spec,
            SchemaCommand.spec,
            VerifyCommand.spec,
            QueryCommand.spec,
            ReplCommand.spec,
            MigrateCommand.spec,
            UpgradeCommand.spec,
            ExportCommand.spec,
            ImportCommand.spec,
            HistoryCommand.spec,
            KeyCommand.spec,
            EncryptCommand.spec,
            DecryptCommand.spec,
            BackupCommand.spec,
            RestoreCommand.spec,
            SyncCommand.spec,
            CompletionsCommand.spec,
            HelpCommand.spec,
        ]
    )
}
