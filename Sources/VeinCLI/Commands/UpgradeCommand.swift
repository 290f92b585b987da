import Vein

enum UpgradeCommand {
    static let spec: CommandSpec = CommandSpec(
        name: "upgrade",
        abstract: "Convert a store of the previous store format to the current one, in place",
        discussion: """
            Converts STORE from store format 2 to format 3, the format this vein writes: the key column of \
            every model table becomes _id (so a model may have a field named id) and _vein_history becomes \
            _vein_migrations. Records, relationships, keys and the schema stay as they are. A store of format \
            2 can be read as it is (info, query, export, verify) but not written until it is upgraded.

            The conversion is one transaction: if it is stopped (a crash, a full disk), the store is left \
            whole in format 2, and running the command again starts over. A store already in format 3 is \
            left alone (exit 0); a store of format 1 or of a newer format is refused.
            """,
        arguments: [SharedOptions.store],
        options: SharedOptions.keyOptions,
        examples: [("vein upgrade blog.vein", "Convert the store to the current format.")],
        run: run)

    static func run(_ invocation: Invocation) throws {
        let path = invocation[SharedOptions.store]
        let result = try StoreUpgrade.upgrade(path, keys: SharedOptions.keyOptions(invocation))
        let console = invocation.console
        guard result.from != result.to else {
            console.out("\(path) is already in store format \(result.to): nothing to do")
            return
        }
        console.out("upgraded \(path) from format \(result.from) to format \(result.to): "
                    + "\(Phrase.count(result.models, "model")), \(Phrase.count(result.rows, "row"))")
    }
}
