import Vein

enum QueryCommand {
    static let statement: ArgumentKey<String> = .required("STATEMENT", help: "The statement to run.", completion: .none)
    static let format: OptionKey<ResultFormatter.Format?> = .choice("format", value: "FORMAT",
        help: "Output format: table (default), json, jsonl, csv or line (field = value, a row at a time).", of: ResultFormatter.Format.self)
    static let csvSafe: OptionKey<Bool> = .flag("csv-safe", help: "With --format csv, write text that starts with = + - @ (a spreadsheet formula) with a leading '.")
    static let dryRun: OptionKey<Bool> = .flag("dry-run", help: "Show what a write would change, and change nothing.")

    static let spec: CommandSpec = CommandSpec(
        name: "query",
        abstract: "Run one statement: fetch, count, get, traverse, insert, update or delete",
        discussion: """
            Runs one statement of the REPL language against STORE. Conditions are the body of a Swift \
            #Predicate: fields bare or as $0.field, Swift's operators and string methods, ranges, optional \
            chaining, one relationship hop, closures over a to-many's members. A uuid field is compared with \
            a UUID value written as Swift writes one, UUID(uuidString: "…"), in either case. \
            A write is saved when it succeeds; with --dry-run it is shown and discarded.

              Post where title.contains("Vein") && views > 10 sort publishedAt desc, title limit 20 offset 40
              count Post where publishedAt == nil
              count Post where (1...100).contains(views) && attachments.contains { $0.sizeMiB > 1 }
              get #id("01J…")
              Post(#id("01J…")).attachments where sizeMiB > 1 sort name
              insert Post(title: "How to use Vein?", content: "It's very easy.")
              update Post where title == "x" set views = views + 1
              delete Post where views == 0

            Each row's key is _id (a ULID); in conditions and sort keys, id means it too when the model has no \
            field named id. The clauses where, sort, limit and offset come in that order, each at most once. A mistake in a \
            statement exits 65 with the place marked by a caret. STORE comes first: a statement given in its \
            place (vein query 'count Post' blog.vein) is exit 64, with the command written the right way.

            A table on a terminal is fitted to its width: long values are cut and marked '…', data is shown \
            from its first bytes, a to-many relationship keeps whole ids and counts the rest; ids are never \
            cut. Written to a file or a pipe, every value is whole (a column is as wide as its values up to \
            40 columns; a longer value runs past it). Widths count East Asian wide characters and emoji as \
            two columns. Control, bidi and invisible format characters in values are shown escaped (\\u{202E}). \
            --csv-safe guards CSV opened in a spreadsheet: text starting with =, +, -, @, a tab or a carriage \
            return gets a leading ' (OWASP's advice on CSV injection), so it shows as text and never runs as a \
            formula; numbers are written as they are.
            """,
        arguments: [SharedOptions.store, statement],
        options: [format, csvSafe, dryRun] + SharedOptions.keyOptions,
        examples: [
            ("vein query blog.vein 'count Post'", "How many posts."),
            ("vein query blog.vein 'Post where views > 10 sort views desc' --format json", "Popular posts as JSON."),
            ("vein query blog.vein 'update Post where views == 0 set views = 1' --dry-run", "What an update would change."),
        ],
        run: run)

    static func run(_ invocation: Invocation) throws {
        let format = invocation[Self.format] ?? .table
        if invocation[csvSafe], format != .csv {
            throw CommandFailure("--csv-safe applies to --format csv only", exitCode: .usage)
        }
        // A statement that does not parse writes nothing: its error is reported once the store is open.
        let reads = (try? QueryParser.parse(invocation[statement]))?.isWrite != true
        let store = try SharedOptions.openStore(invocation, mode: reads ? .readOnly : .readWrite)
        let context = ObjectContext(store: store)
        let dryRun = invocation[Self.dryRun]
        let result = try QueryRunner(context: context).run(invocation[statement], save: !dryRun)
        let console = invocation.console
        switch result {
        case .objects(let model, let objects):
            let style = ResultFormatter.Style(width: ResultFormatter.terminalWidth(console), csvSafe: invocation[csvSafe])
            try ResultFormatter.print(objects, model: model, format: format, style: style, console: console)
        case .count(let n):
            console.out(ResultFormatter.count(n, format: format))
        case .changes(let changes):
            if dryRun {
                context.rollback()
                try ResultFormatter.print(changes, format: format, console: console)
                console.note("dry run: nothing was saved")
            } else {
                try ResultFormatter.print(changes, format: format, console: console)  // saved by the runner
            }
        }
    }
}
