import Vein

enum SchemaCommand {
    static let spec: CommandSpec = CommandSpec(
        name: "schema",
        abstract: "Print the schema a store holds",
        discussion: """
            Prints the store's current schema: a summary of models, fields and relationships, or with --json \
            the manifest itself in canonical form, which 'vein create --schema' accepts, or with --swift \
            the Swift an app declares it with: an enum conforming to VersionedSchema holding one @Model class \
            per model, whose manifest is the store's, byte for byte.
            """,
        arguments: [SharedOptions.store],
        options: SharedOptions.keyOptions + [SharedOptions.json, swift],
        examples: [("vein schema blog.vein", "A summary."), ("vein schema blog.vein --json > blog.json", "The manifest, to create another store."),
                   ("vein schema blog.vein --swift > Sources/App/Schema.swift", "The @Model declarations, for an app.")],
        run: run)

    static let swift: OptionKey<Bool> = .flag("swift", help: "Print the schema as Swift: a VersionedSchema enum with @Model classes.")

    static func run(_ invocation: Invocation) throws {
        let wantsSwift = invocation[swift]
        if wantsSwift && invocation.wantsJSON {
            throw UsageError(message: "choose one of --json and --swift", command: invocation.commandPath)
        }
        let store = try SharedOptions.openStore(invocation, mode: .readOnly)
        let manifest = store.manifest
        let console = invocation.console
        if wantsSwift {
            console.outText(try manifest.swiftDeclarations())
            return
        }
        if invocation.wantsJSON {
            console.outJSON(manifest.canonicalJSON)
            return
        }
        console.out("\(manifest.app) \(manifest.version)")
        for model in manifest.models {
            console.out()
            console.out(console.bold(model.name))
            let width = (model.columnNames.map(\.count).max() ?? 0) + 2
            for field in model.fields { console.out("  " + HelpRenderer.pad(field.name, width) + describe(field)) }
            for rel in model.relationships { console.out("  " + HelpRenderer.pad(rel.name, width) + describe(rel)) }
            for index in model.indexes { console.out("  index on \(index.joined(separator: ", "))") }
            for constraint in model.uniquenessConstraints { console.out("  unique together: \(constraint.joined(separator: ", "))") }
        }
    }

    static func describe(_ field: FieldSchema) -> String {
        var text = field.type.rawValue + (field.isOptional ? "?" : "")
        if field.type == .enum { text += " (" + field.enumValues.map { JSONWriter.string($0) }.joined(separator: ", ") + ")" }
        if field.isUnique { text += " unique" }
        if field.isLazy { text += " lazy" }
        if field.preservesValueOnDeletion { text += " preserved on deletion" }
        if let d = field.defaultValue { text += " = \(JSONWriter.string(d))" }
        return text
    }

    static func describe(_ rel: RelationshipSchema) -> String {
        var text = rel.isToMany ? "→ [\(rel.target)]" : "→ \(rel.target)?"
        if let inverse = rel.inverse { text += " inverse \(inverse)" }
        if rel.deleteRule != .nullify { text += ", on delete \(rel.deleteRule.rawValue)" }
        return text
    }
}
