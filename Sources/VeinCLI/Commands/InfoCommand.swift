import Foundation
import Vein

enum InfoCommand {
    static let spec: CommandSpec = CommandSpec(
        name: "info",
        abstract: "Show a store's schema version, models and row counts, size and encryption",
        discussion: "Opens STORE read-only in effect (nothing is written) and prints what it is: app and schema version, each model with its row count, the file size, the cipher settings and which key source opened it, whether it keeps a change log, and each continuous backup it has sent to (the last generation, segment and token sent). The key itself is never printed.",
        arguments: [SharedOptions.store],
        options: SharedOptions.keyOptions + [SharedOptions.json],
        examples: [("vein info blog.vein", "Show the store."), ("vein info blog.vein --json | jq .models", "Row counts for a script.")],
        run: run)

    static func run(_ invocation: Invocation) throws {
        let store = try SharedOptions.openStore(invocation, mode: .readOnly)
        let info = try StoreInfo(store)
        // The continuous backups it has sent to (docs/backup.md#in-the-store): what a cron job checks.
        let backups = try BackupProgress.all(of: store)
        let console = invocation.console
        if invocation.wantsJSON {
            var object = JSONObject()
            object["store"] = .string(info.path)
            object["path"] = .string(info.realPath)
            object["app"] = .string(info.meta.app)
            object["schemaVersion"] = .string(info.meta.schemaVersion)
            object["manifestSHA256"] = .string(info.meta.manifestSHA256)
            object["formatVersion"] = .int(Int64(info.meta.formatVersion))
            object["models"] = .array(info.modelRows.map { .object(JSONObject([("name", .string($0.model)), ("rows", .int($0.rows))])) })
            object["sizeBytes"] = .int(info.sizeBytes)
            object["encrypted"] = .bool(info.cipher != nil)
            object["keySource"] = .string(info.keySource.kind)
            if let cipher = info.cipher {
                var c = JSONObject()
                c["version"] = .string(cipher.version)
                c["algorithm"] = .string(cipher.algorithm)
                c["pageSize"] = .int(Int64(cipher.pageSize))
                c["key"] = .string(cipher.keyKind)
                c["kdfIterations"] = cipher.kdfIterations.map { .int(Int64($0)) } ?? .null
                object["cipher"] = .object(c)
            } else {
                object["cipher"] = .null
            }
            if let log = info.changeLog {
                object["history"] = .object(JSONObject([
                    ("kept", .bool(true)), ("transactions", .int(log.transactions)),
                    ("lastToken", log.lastToken.map(JSONValue.int) ?? .null), ("prunedThrough", log.prunedThrough.map(JSONValue.int) ?? .null),
                ]))
            } else {
                object["history"] = .object(JSONObject([("kept", .bool(false))]))
            }
            object["backups"] = .array(backups.map { backup in
                .object(JSONObject([("backup", .string(backup.backupID)), ("generation", .int(Int64(backup.progress.generation))),
                                    ("sequence", .int(Int64(backup.progress.sequence))), ("lastToken", .int(backup.progress.lastToken))]))
            })
            object["journalMode"] = .string(info.journalMode)
            object["sqliteVersion"] = .string(info.sqliteVersion)
            object["createdAt"] = .string(info.meta.createdAt)
            object["toolVersion"] = .string(info.meta.toolVersion)
            console.outJSON(.object(object))
            return
        }
        var rows: [(String, String)] = [
            ("store", info.path),
            ("app", info.meta.app),
            ("schema", "\(info.meta.schemaVersion) (sha256 \(info.meta.manifestSHA256.prefix(12))…)"),
            ("size", ByteCount.format(info.sizeBytes)),
        ]
        if let cipher = info.cipher {
            var text = "SQLCipher \(cipher.version), \(cipher.algorithm), \(cipher.pageSize)-byte pages, \(cipher.keyKind)"
            if let iterations = cipher.kdfIterations { text += ", \(iterations) KDF iterations" }
            rows.append(("encryption", text))
            rows.append(("key source", info.keySource.description))
        } else {
            rows.append(("encryption", "none (plaintext)"))
        }
        if let log = info.changeLog {
            var text = "kept, \(Phrase.count(Int(log.transactions), "transaction"))"
            if let last = log.lastToken { text += ", last token \(last)" }
            if let pruned = log.prunedThrough { text += ", pruned through token \(pruned)" }
            rows.append(("history", text))
        } else {
            rows.append(("history", "not kept ('vein history enable' starts it)"))
        }
        for backup in backups {
            let progress = backup.progress
            rows.append(("backup", "\(backup.backupID): generation \(progress.generation), "
                         + (progress.sequence == 0 ? "its snapshot" : "segment \(progress.sequence)") + ", through token \(progress.lastToken)"))
        }
        rows.append(("created", "\(info.meta.createdAt) by vein \(info.meta.toolVersion)"))
        let width = rows.map { $0.0.count }.max()! + 2
        for (label, value) in rows { console.out(HelpRenderer.pad(label, width) + value) }
        console.out("models")
        let nameWidth = (info.modelRows.map { $0.model.count }.max() ?? 0) + 2
        for (model, count) in info.modelRows {
            console.out("  " + HelpRenderer.pad(model, nameWidth) + Phrase.rows(count))
        }
    }
}

/// Human-readable byte counts (KiB, MiB, GiB).
enum ByteCount {
    static func format(_ bytes: Int64) -> String {
        let units = ["bytes", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? Phrase.count(Int(bytes), "byte") : "\(String(format: "%.1f", value)) \(units[unit])"
    }
}
