import Foundation
import Vein

// Issue 21, item 6: what the change log costs a save (docs/history.md). The bench rows' insert of 50,000
// in one save, and an update of one field of each of them in one save, on a store without a log and on
// one keeping it. Prints `vein history <operation> <variant> <off|on> <median ms>`.
func measureHistoryCost() throws {
    for encrypted in [true, false] {
        let variant = encrypted ? "encrypted" : "plaintext"
        for keeps in [false, true] {
            var inserts: [Double] = [], updates: [Double] = []
            for r in 0..<repetitions {
                let path = directory + "/history-\(variant)-\(keeps)-\(r).vein"
                FileSystem.removeDatabaseFiles(path)
                _ = try StoreCreator.create(at: path, manifest: manifest, protection: encrypted ? .encrypted(keys) : .plaintext,
                                            keepsChangeLog: keeps)
                let store = try Store.open(path, keys: keys)
                let context = ObjectContext(store: store)
                reportPhase("history-insert-\(keeps ? "on" : "off") begins")
                inserts.append(try milliseconds { try insertRows(context, count: 50_000 / scale) })
                reportPhase("history-insert-\(keeps ? "on" : "off") ends")
                // VEIN_BENCH_HISTORY_INSERTS=1: the inserts only (a quicker loop while working on them).
                if ProcessInfo.processInfo.environment["VEIN_BENCH_HISTORY_INSERTS"] != nil {
                    try store.close()
                    FileSystem.removeDatabaseFiles(path)
                    continue
                }
                let rows = try context.fetch(ObjectFetch(model: "Row"))
                updates.append(try milliseconds {
                    for (n, row) in rows.enumerated() { try row.set("f3", .int(Int64(n) &* 7)) }
                    try context.save()
                })
                try store.close()
                FileSystem.removeDatabaseFiles(path)
            }
            let mode = keeps ? "on" : "off"
            print("vein history insert \(variant) \(mode) \(String(format: "%.1f", median(inserts)))")
            if !updates.isEmpty { print("vein history update \(variant) \(mode) \(String(format: "%.1f", median(updates)))") }
        }
    }
}
