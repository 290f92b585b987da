import Vein

enum VerifyCommand {
    static let spec: CommandSpec = CommandSpec(
        name: "verify",
        abstract: "Check a store's integrity, schema conformance and relationships",
        discussion: """
            Runs four checks and changes nothing: integrity (SQLite's integrity_check), schema (the stored \
            manifest matches its SHA-256, and the tables, columns and indexes match the manifest), values \
            (every id is a ULID, every value has its field's type, enum and JSON values are valid) and \
            relationships (no id points to a missing row; both sides of every inverse pair agree).

            Exits 0 when every check passes and 65 when any finds a problem; each problem names the model, \
            field, row count and up to 5 sample ids.
            """,
        arguments: [SharedOptions.store],
        options: SharedOptions.keyOptions + [SharedOptions.json, SharedOptions.quiet],
        examples: [("vein verify blog.vein", "Check the store; exit 65 if anything is wrong.")],
        run: run)

    static func run(_ invocation: Invocation) throws {
        let path = invocation[SharedOptions.store]
        let report: StoreVerifier.Report
        do {
            report = try StoreVerifier.verify(try SharedOptions.openStore(invocation, mode: .readOnly))
        } catch {
            // Damage that stops the store from opening is verify's finding, reported as the others are.
            guard let damaged = StoreVerifier.damagedBeforeChecks(error, path: path) else { throw error }
            report = damaged
        }
        let console = invocation.console
        if invocation.wantsJSON {
            console.outJSON(.object(JSONObject([
                ("store", .string(path)),
                ("ok", .bool(report.isClean)),
                ("checks", .array(report.checks.map { check in
                    .object(JSONObject([("name", .string(check.name)), ("ok", .bool(check.isClean)),
                                        ("problems", .array(check.problems.map(JSONValue.string)))]))
                })),
            ])))
        } else if !invocation.quiet || !report.isClean {
            for check in report.checks {
                console.out("\(HelpRenderer.pad(check.name, 15))\(check.isClean ? "ok" : Phrase.count(check.problems.count, "problem"))")
                // Problems quote stored ids, which another tool may have filled with escape sequences.
                for problem in check.problems { console.out("  \(problem.escapingControlCharacters)") }
            }
        }
        guard report.isClean else {
            let count = report.checks.reduce(0) { $0 + $1.problems.count }
            throw CommandFailure("\(path) failed verification (\(Phrase.count(count, "problem")))", exitCode: .dataError)
        }
    }
}
