import Testing
@testable import VeinCLI
import Vein

/// Commands read their options through keys declared with the command table (issue 20, item 7): each
/// key reads its option in its own type, as the parser left it.
@Suite struct OptionKeyTests {
    func parse(_ words: [String], _ spec: CommandSpec) throws -> ParsedArguments {
        try ArgumentParser.parse(words, spec: spec, commandPath: spec.name)
    }

    @Test func eachKindOfOptionReadsInItsType() throws {
        let export = try parse(["s.vein", "--model", "Post", "-o", "out.json", "--model", "Tag", "--format", "jsonl", "--force"], ExportCommand.spec)
        #expect(export[SharedOptions.store] == "s.vein")
        #expect(export[ExportCommand.model] == ["Post", "Tag"])
        #expect(export[ExportCommand.output] == "out.json")
        #expect(export[ExportCommand.format] == .jsonl)
        #expect(export[ExportCommand.force])
        #expect(export[ExportCommand.condition] == nil)
        #expect(!export[SharedOptions.quiet])

        let query = try parse(["s.vein", "count Post", "--format=csv"], QueryCommand.spec)
        #expect(query[QueryCommand.statement] == "count Post")
        #expect(query[QueryCommand.format] == .csv)

        let migrate = try parse(["s.vein", "--plan", "p.json5"], MigrateCommand.spec)
        #expect(migrate[MigrateCommand.plan] == "p.json5")

        let help = try parse(["key"], HelpCommand.spec)
        #expect(help[HelpCommand.command] == "key")
        #expect(help[HelpCommand.subcommand] == nil)
    }

    /// An option the command does not declare is refused by the parser, so its key reads as not given.
    @Test func anOptionOfAnotherCommandReadsAsNotGiven() throws {
        #expect(throws: UsageError(message: "unknown option --upsert", command: "export")) {
            try parse(["s.vein", "--upsert"], ExportCommand.spec)
        }
        #expect(!(try parse(["s.vein"], ExportCommand.spec))[ImportCommand.upsert])
    }

    /// A choice key reads an unknown value as not given, so the parser must refuse one first: `--format
    /// xml` is a usage error naming the choices, never an export in the default format.
    @Test func aChoiceOptionRefusesAValueNotAmongItsCases() throws {
        #expect(throws: UsageError(message: "--format must be one of json, jsonl, not \"xml\"", command: "export")) {
            try parse(["s.vein", "--format", "xml"], ExportCommand.spec)
        }
    }

    /// The man pages' EXIT STATUS comes from the statuses themselves, in the order of their values.
    @Test func everyExitStatusIsExplainedOnce() {
        let page = ManRenderer.page(InfoCommand.spec, path: ["info"], version: "x", date: "d")
        for code in ExitCode.allCases { #expect(page.contains(".B \(code.rawValue)\n\(ManRenderer.escape(code.meaning))"), "\(code)") }
        #expect(ExitCode.allCases.map(\.rawValue) == ExitCode.allCases.map(\.rawValue).sorted())
    }
}
