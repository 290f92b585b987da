import Foundation
import Vein

/// `vein backup verify DEST [--store STORE]`: every file of a continuous backup unseals, chains and applies
/// (docs/backup.md#verifying).
enum BackupVerifyCommand {
    static let folder: ArgumentKey<String> = .required("DEST", help: "The continuous backup's folder.", completion: .file)
    static let store: OptionKey<String?> = .value("store", value: "STORE",
        help: "Also compare DEST with what STORE recorded sending, which finds its newest files deleted.", completion: .file)

    static let spec: CommandSpec = CommandSpec(
        name: "verify",
        abstract: "Check that a continuous backup restores",
        discussion: """
            Checks every generation of the backup in DEST: each snapshot and segment decrypts with its key, \
            is where its header says, follows the file before it, and applies, in order, onto a scratch copy \
            that then passes 'vein verify'; nothing is written to DEST. With --store, STORE's record of the \
            last file it sent must be in DEST, unchanged: deleting a backup's newest files cannot be seen \
            from DEST alone. Exit 65 naming the first file that fails; the key is found as for 'vein restore'.
            """,
        arguments: [folder],
        options: [store, BackupKeyOptionsCLI.backupKeyFile] + SharedOptions.keyOptions + [SharedOptions.json, SharedOptions.quiet],
        examples: [("vein backup verify /mnt/nas/blog --store blog.vein", "The nightly check of a continuous backup.")],
        run: run)

    static func run(_ invocation: Invocation) throws {
        let backup = try BackupFolder.open(invocation[folder])
        let results = try BackupRestore.verify(backup, keys: BackupKeyOptionsCLI.keys(invocation, folder: backup))
        if let path = invocation[store] {
            let source = try Store.open(path, keys: SharedOptions.keyOptions(invocation), mode: .readOnly)
            try BackupRestore.compare(backup, with: source)
        }
        if invocation.wantsJSON {
            invocation.console.outJSON(.object(JSONObject([("backup", .string(backup.path)), ("generations", .array(results.map { check in
                check.result.map(RestoreCommand.json) ?? .object(JSONObject([("generation", .int(Int64(check.generation))), ("notChecked", .string(check.notChecked ?? ""))]))
            }))])))
        } else if !invocation.quiet {
            for check in results {
                if let result = check.result {
                    invocation.console.out("generation \(check.generation): snapshot and \(Phrase.count(result.segmentsRead, "segment")), "
                                           + "through \(RestoreCommand.moment(result)): ok")
                } else {
                    invocation.console.out("generation \(check.generation): not checked: \(check.notChecked ?? "")")
                }
            }
        }
    }
}

/// `vein backup export-key DEST --to FILE`: the backup's key wrapped under a passphrase.
enum BackupExportKeyCommand {
    static let folder: ArgumentKey<String> = .required("DEST", help: "The continuous backup's folder.", completion: .file)
    static let output: OptionKey<String> = .required("to", value: "FILE", help: "The file to write (mode 0600); it must not exist.", completion: .file)

    static let spec: CommandSpec = CommandSpec(
        name: "export-key",
        abstract: "Write a continuous backup's key, wrapped under a passphrase",
        discussion: """
            Writes the key of DEST's newest generation to FILE, sealed (AES-256-GCM) under a key derived from a \
            passphrase (PBKDF2-HMAC-SHA256), asked twice on a terminal or read as one line from standard input. \
            'vein restore DEST NEW --backup-key-file FILE --key-file NEW.key' then restores on a machine that has \
            nothing else (NEW's key goes to NEW.key). The \
            key is found as for 'vein restore'.
            """,
        arguments: [folder],
        options: [output, BackupKeyOptionsCLI.backupKeyFile] + SharedOptions.keyOptions + [SharedOptions.weakPassphrase],
        examples: [("vein backup export-key /mnt/nas/blog --to blog-backup.key", "Keep this file and its passphrase apart from the backup.")],
        run: run)

    static func run(_ invocation: Invocation) throws {
        let backup = try BackupFolder.open(invocation[folder])
        let path = invocation[output]
        let passphrase = try PassphrasePrompt.read(confirm: true)
        if passphrase.count < CipherKey.minimumPassphraseLength, !invocation[SharedOptions.weakPassphrase] {
            throw CommandFailure("the passphrase is shorter than \(CipherKey.minimumPassphraseLength) characters",
                                 hint: "choose a longer one, or accept it with --weak-passphrase", exitCode: .usage)
        }
        try BackupKeyExport.write(backup, keys: BackupKeyOptionsCLI.keys(invocation, folder: backup), to: path, passphrase: passphrase)
        if !invocation.quiet { invocation.console.note("wrote the key of \(backup.path) to \(path), sealed under the passphrase") }
    }
}
