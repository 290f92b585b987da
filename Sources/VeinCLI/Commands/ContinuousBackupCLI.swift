import Foundation
import Vein

/// `vein backup STORE DEST --continuous [--watch]`: runs passes of ContinuousBackup and says what each did.
enum ContinuousBackupCLI {
    /// How often `--watch` looks for new commits: well within the second a commit may wait.
    static let pollInterval: useconds_t = 200_000

    static func run(_ invocation: Invocation) throws {
        var policy = ContinuousBackup.Policy()
        if let text = invocation[BackupCommand.keepDays] {
            guard let days = Int(text), days >= 0 else {
                throw UsageError(message: "--keep-days takes a whole number of days, not \"\(text)\"", command: "backup")
            }
            policy.keepDays = days
        }
        var backup = try open(invocation, policy: policy)
        // Read before the first pass: a commit made while it runs moves it, and the next look sends it.
        var seen = try backup.store.database.scalar("PRAGMA data_version")
        report(try backup.run(), folder: backup.folder, invocation: invocation)
        guard invocation[BackupCommand.watch] else { return }
        while true {
            usleep(pollInterval)
            let version = try backup.store.database.scalar("PRAGMA data_version")
            guard version != seen else { continue }
            let steps: [ContinuousBackup.Step]
            do {
                steps = try backup.run()
            } catch let error as DatabaseError where error.isBusy {
                // Another process holds the store's write lock (a long save): the next look tries again.
                continue
            } catch StoreError.schemaChanged {
                // Migrated under the watch: opened again under its new schema, and the next pass starts a
                // generation after the migration.
                try? backup.store.close()
                backup = try open(invocation, policy: policy)
                seen = nil
                continue
            }
            seen = version
            report(steps, folder: backup.folder, invocation: invocation)
        }
    }

    /// The store, its backup folder and the backup's key, as the invocation names them.
    static func open(_ invocation: Invocation, policy: ContinuousBackup.Policy) throws -> ContinuousBackup {
        let store = try SharedOptions.openStore(invocation)
        let folder = try ContinuousBackup.folder(for: store, at: invocation[BackupCommand.destination])
        let key = try BackupKeyOptionsCLI.options(invocation, newKey: invocation[BackupCommand.newKey]).keyForWriting(store: store, folder: folder)
        return ContinuousBackup(store: store, folder: folder, key: key, policy: policy)
    }

    static func report(_ steps: [ContinuousBackup.Step], folder: BackupFolder, invocation: Invocation) {
        if invocation.wantsJSON {
            invocation.console.outJSON(.object(JSONObject([("backup", .string(folder.path)), ("steps", .array(steps.map(json)))])))
            return
        }
        guard !invocation.quiet else { return }
        for step in steps { invocation.console.note(text(step, folder: folder)) }
    }

    static func text(_ step: ContinuousBackup.Step, folder: BackupFolder) -> String {
        switch step {
        case .snapshot(let generation, let reason, let bytes):
            return "\(folder.path): generation \(generation) begins with a snapshot (\(reason)), \(Phrase.count(bytes, "byte"))"
        case .segment(let generation, let sequence, let transactions, let bytes):
            return "\(folder.path): generation \(generation), segment \(sequence): \(Phrase.count(transactions, "commit")), \(Phrase.count(bytes, "byte"))"
        case .outsideWrites(let rows):
            return "\(Phrase.count(Int(rows), "row write")) made outside Vein recorded in the change log"
        case .removedGeneration(let generation):
            return "\(folder.path): removed generation \(generation), older than the backup keeps"
        }
    }

    static func json(_ step: ContinuousBackup.Step) -> JSONValue {
        switch step {
        case .snapshot(let generation, let reason, let bytes):
            return .object(JSONObject([("step", .string("snapshot")), ("generation", .int(Int64(generation))), ("reason", .string(reason)),
                                       ("bytes", .int(Int64(bytes)))]))
        case .segment(let generation, let sequence, let transactions, let bytes):
            return .object(JSONObject([("step", .string("segment")), ("generation", .int(Int64(generation))), ("sequence", .int(Int64(sequence))),
                                       ("commits", .int(Int64(transactions))), ("bytes", .int(Int64(bytes)))]))
        case .outsideWrites(let rows):
            return .object(JSONObject([("step", .string("outside-writes")), ("rows", .int(rows))]))
        case .removedGeneration(let generation):
            return .object(JSONObject([("step", .string("removed-generation")), ("generation", .int(Int64(generation)))]))
        }
    }
}
