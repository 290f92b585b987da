import Foundation
import Vein

/// `vein sync conflicts STORE [--keep mine|theirs --id ID]`: the rows a merge set aside for a unique value
/// another row claimed first, and their resolution (SyncConflicts, docs/sync.md#unique-values).
enum SyncConflictsCommand {
    static let keep: OptionKey<SyncConflicts.Side?> = .choice("keep", value: "mine|theirs",
        help: "Resolve the conflict of --id: mine keeps the row STORE holds and deletes the one set aside; theirs deletes "
            + "the rows that hold its values (with their delete rules) and brings it back.", of: SyncConflicts.Side.self)
    static let id: OptionKey<String?> = .value("id", value: "ID", help: "The set-aside row whose conflict --keep resolves.")

    static let spec: CommandSpec = CommandSpec(
        name: "conflicts",
        abstract: "List the rows a sync set aside for a unique value, or resolve one",
        discussion: """
            When two replicas give one unique value to two rows, the row that claimed it first stays and the \
            other is set aside whole: its fields, its links, and the to-ones that named it (which read null \
            meanwhile). Nothing is lost: a merged change keeps reaching it, and it comes back by itself when \
            its value is free (the other row deleted or changed). Lists each set-aside row with the values \
            contested and the rows that hold them. --keep with --id resolves one as a commit of STORE, which \
            the next 'vein sync' sends, so every replica resolves it the same way. Reads STORE only, never \
            the relay. Exit 66 when --id names no set-aside row.
            """,
        arguments: [SharedOptions.store],
        options: [keep, id, SharedOptions.json, SharedOptions.quiet] + SharedOptions.keyOptions,
        examples: [
            ("vein sync conflicts blog.vein", "What the last syncs set aside."),
            ("vein sync conflicts blog.vein --keep theirs --id 01J9Z3…", "The set-aside post wins; the one that held its slug goes."),
        ],
        run: run)

    static func run(_ invocation: Invocation) throws {
        let side = invocation[keep], target = invocation[id]
        guard (side == nil) == (target == nil) else {
            throw CommandFailure("--keep and --id go together: --keep says which row stays, --id names the conflict", exitCode: .usage)
        }
        let store = try SharedOptions.openStore(invocation, mode: side == nil ? .readOnly : .readWrite)
        let conflicts = try SyncConflicts(store: store)
        if let side, let target {
            try conflicts.keep(side, id: target)
            if !invocation.quiet {
                invocation.console.note(side == .mine ? "deleted the set-aside row \(target); sync to send it"
                                        : "deleted the rows that held its values and brought \(target) back; sync to send it")
            }
            return
        }
        let list = try conflicts.list()
        if invocation.wantsJSON {
            invocation.console.outJSON(.array(list.map { $0.json(manifest: store.manifest) }))
            return
        }
        if list.isEmpty {
            if !invocation.quiet { invocation.console.note("no conflicts") }
            return
        }
        for conflict in list {
            guard case .object(let object) = conflict.json(manifest: store.manifest),
                  case .object(let contested)? = object["contested"], case .object(let fields)? = object["fields"] else { continue }
            func pairs(_ o: JSONObject, _ separator: String) -> String {
                o.map { "\($0.key) \(JSONWriter.string($0.value))" }.joined(separator: separator)
            }
            invocation.console.out("\(conflict.model) \(conflict.id) is set aside: its \(pairs(contested, " and ")) "
                                   + "\(contested.count == 1 ? "is" : "are") held by \(conflict.holders.joined(separator: ", "))")
            invocation.console.out("  " + pairs(fields, ", "))
        }
    }
}
