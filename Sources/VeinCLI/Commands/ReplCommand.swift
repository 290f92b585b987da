import Foundation
import Vein

enum ReplCommand {
    static let spec: CommandSpec = CommandSpec(
        name: "repl",
        abstract: "Open a session on a store: statements, dot-commands, changes saved on 'save'",
        discussion: """
            Opens STORE with any key source and reads statements of the query language (see vein query) \
            with line editing, history and tab completion from the schema: statement words, model names, the \
            fields of the model in scope, enum cases after '== .', dot-commands, and ids of the last result \
            after '#id("'. A statement continues on the next line while it is incomplete (an open bracket or \
            string, a trailing operator).

            Writes stay pending until 'save', as in a ModelContext: each statement shows what it changed, \
            'changes' lists everything 'save' would write, 'rollback' discards it. The prompt shows a '*' while \
            changes are unsaved, and quitting with unsaved changes asks first. Ctrl-C cancels the input or the \
            running statement; Ctrl-D on an empty line quits.

              Post where title.contains("Vein") && views > 10 sort publishedAt desc
              insert Post(title: "How to use Vein?", content: "It's very easy.")
              changes
              save

            Dot-commands: .models, .schema [MODEL], .mode table|json|jsonl|csv [--safe]|line, .timer on|off, \
            .headers on|off, .width [N …], .read FILE, .output [--force] [FILE], .explain [--all] STATEMENT, \
            .sql SELECT …, .help, .quit. '.sql' runs read-only SQL and refuses anything that writes. '.mode csv --safe' writes \
            text that starts with =, +, -, @, a tab or a carriage return with a leading ' (OWASP's advice), so \
            a spreadsheet shows it and never runs it as a formula.

            Long results go through $PAGER (less -FRX unless set; PAGER= turns it off), the row count below \
            them; a pager that fails (a missing program, false) is said once and results are shown without \
            it. On a terminal a table is fitted to its width, counted in display columns (East Asian wide \
            characters and emoji take two): long values are cut and marked '…', data is shown from its first \
            bytes, a to-many keeps whole ids and counts the rest, and ids are never cut. Past a screenful, \
            the changes of a write, 'changes' and the arguments of .explain are summarised (per model and \
            fields, the first ids, '… 128 more'); 'changes --all' and '.explain --all' list every one. Written \
            to a file or a pipe (.output FILE, a script's output) nothing is shortened or summarised. \
            Control, bidi and invisible format characters in values are shown escaped (\\u{202E}).

            History holds data, so for an encrypted store it is kept in memory only unless --history FILE is \
            given; for a plaintext store it is kept in ~/.vein_history (VEIN_HISTORY=FILE moves it, \
            VEIN_HISTORY= turns it off). History files are written mode 0600. A history file named with \
            --history or VEIN_HISTORY that vein cannot write, or that is STORE, its -wal, -shm or -journal or \
            its key file (however named: a symbolic or hard link is the same file), is refused with exit 73 \
            before the first prompt; one that is not UTF-8 text, is a SQLite database or holds a raw key is \
            used only with --force. The default ~/.vein_history is not refused: the session then keeps \
            history in memory and says why. The file is checked again when it is written on the way out. \
            '.output FILE' refuses the same files ('.output --force FILE' replaces one that is not text).

            When standard input is not a terminal, vein repl runs it as a script: no prompt, no colour, each \
            statement's output as vein query prints it; the first error stops the script with its exit status, \
            like sqlite3 -bail (a line it refuses, such as .sql that writes or an unknown dot-command, is 65). A \
            script must end with 'save' (or 'rollback'): one that ends with unsaved changes writes nothing and \
            exits 65. A passphrase (--passphrase) is then the first line of input.

            A statement is at most 64 MiB: longer input is refused as it is read (exit 65 in a script). .read \
            takes a file or a pipe, never a directory or a device (exit 66); a script that reads itself, or one \
            that reads it back, stops with the chain of files, and reads nest 16 deep at most (exit 65).

            When another process changed a row that the pending changes were computed from, 'save' refuses them \
            (a conflict, exit 75 in a script) and would refuse them again: 'rollback', then repeat the \
            statements. A session offers to roll back at once.
            """,
        arguments: [SharedOptions.storeArgument],
        options: [
            OptionSpec("read-only", help: "Open the store without write access: writes and save are refused."),
            OptionSpec("history", value: "FILE", help: "Keep the history in FILE (mode 0600), also for an encrypted store.",
                       completion: .file),
            OptionSpec("force", help: "With --history: use FILE even when it is not text, is a SQLite database or holds a key."),
        ] + SharedOptions.keyOptions,
        examples: [
            ("vein repl blog.vein --key-file blog.key", "A session on an encrypted store."),
            ("vein repl blog.vein --key-file blog.key < changes.vein", "Run a script; it must end with save."),
            ("vein repl blog.vein --read-only", "Look, and change nothing."),
        ],
        sections: [("For sqlite3 users", """
            The habits of the sqlite3 shell, and what they are in vein repl:

              .tables                        .models
              .schema TABLE                  .schema Model
              SELECT * FROM post WHERE …     Post where …
              SELECT count(*) FROM post      count Post
              ORDER BY a DESC LIMIT 5        sort a desc limit 5
              INSERT INTO post …             insert Post(title: "…", content: "…")
              UPDATE post SET …              update Post where … set views = views + 1
              BEGIN … COMMIT                 statements, then save (rollback discards)
              EXPLAIN QUERY PLAN …           .explain Post where …
              .mode column, .headers on      .mode table, .headers on
              sqlite3 -bail db < script      vein repl STORE < script

            Conditions are Swift, not SQL: == not =, && not AND, "strings" in double quotes, nil not NULL. \
            Any other SELECT can still be run with .sql, which refuses anything that writes.
            """)],
        run: run)

    static func run(_ invocation: Invocation) throws {
        var readOnly = invocation.arguments.flag("read-only")
        let console = invocation.console
        var upgradeNeeded: StoreError?
        let store: Store
        do {
            store = try SharedOptions.openStore(invocation, mode: readOnly ? .readOnly : .readWrite)
        } catch let error as StoreError {
            // A store of the format before is read as it is: the session reads, and refuses writes with the hint.
            guard case .needsUpgrade(let path, let found) = error else { throw error }
            store = try SharedOptions.openStore(invocation, mode: .readOnly)
            console.warning("\(ErrorReporting.upgradeNeeded(path, found: found)); opened read-only")
            (readOnly, upgradeNeeded) = (true, error)
        }
        let interactive = console.stdinIsTerminal
        let writeGuard = SharedOptions.writeGuard(invocation, store)
        let session = ReplSession(store: store, console: console, readOnly: readOnly, interactive: interactive, writeGuard: writeGuard)
        session.upgradeNeeded = upgradeNeeded
        if invocation.arguments.flag("force") && invocation.arguments.value("history") == nil {
            throw UsageError(message: "--force goes with --history FILE", command: invocation.commandPath)
        }
        let force = invocation.arguments.flag("force")
        // Whether the history file may be written: settled before the first prompt (readline reads the file
        // then), not after the session's work, and again just before it is written on the way out.
        let checkHistory = { (path: String) throws in
            try writeGuard.check(path, force: force)
            try FileSystem.requireWritable(path)
        }
        if interactive {
            // In a script Ctrl-C ends vein, as it ends sqlite3 running one.
            Interrupt.install()
            if let keyEnv = invocation.arguments.value("key-env") { Pager.hiddenVariables.insert(keyEnv) }
            var history = HistoryPolicy.file(explicit: invocation.arguments.value("history"), encrypted: store.encryption.isEncrypted,
                                             environment: invocation.environment)
            if let file = history {
                do {
                    try checkHistory(file.path)
                } catch where !file.named {
                    // ~/.vein_history, which the person never asked for: the session goes on without it.
                    console.warning("\(error); history is kept in memory only (VEIN_HISTORY=FILE keeps it elsewhere)")
                    history = nil
                }
            }
            try InteractiveLoop(session: session, historyFile: history?.path, checkHistoryFile: checkHistory).run()
        } else {
            // A script keeps no history, but a --history it names is refused as a session's would be: the
            // same command line typed at a terminal must not pass here and fail there.
            if let named = invocation.arguments.value("history") { try checkHistory(named) }
            try ScriptRunner.runStandardInput(session)
        }
    }
}
