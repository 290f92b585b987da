import Foundation
import Vein

/// `vein encrypt`, `vein decrypt` and `vein backup`: a store copied into a new file (StoreCopier).
enum EncryptCommand {
    static let source: ArgumentKey<String> = .required("SRC", help: "The plaintext store.", completion: .file)
    static let destination: ArgumentKey<String> = .required("DEST", help: "The encrypted copy to create. It must not exist.", completion: .file)

    static let spec: CommandSpec = CommandSpec(
        name: "encrypt",
        abstract: "Write an encrypted copy of a plaintext store",
        discussion: """
            Copies every row of SRC, its _vein_meta and _vein_migrations and the SQLite header values the tables \
            do not hold, into DEST encrypted with SQLCipher (4096-byte pages). The key options work as for \
            'vein create': an existing key, a new random key written to a new --key-file, or by default a new \
            random key kept in the keyring. DEST is built under a temporary name and linked into place: it is \
            complete or absent, and an existing DEST is never replaced. Neither DEST, the -wal, -shm and \
            -journal SQLite writes beside it, nor a new key file may lead to SRC (through a link or another \
            name) or to DEST's own names, and a DEST-wal or DEST-journal left there by another store is not \
            replayed into the copy: exit 73, nothing written.
            """,
        arguments: [source, destination],
        options: SharedOptions.keyOptions + [SharedOptions.weakPassphrase, SharedOptions.json, SharedOptions.quiet],
        examples: [("vein encrypt test.vein prod.vein --key-file prod.key", "An encrypted copy with a new key in prod.key.")],
        run: run)

    static func run(_ invocation: Invocation) throws {
        let path = invocation[Self.source]
        // Anything but a store (no file, a directory, text) is for Store.open to explain.
        if Store.mightBeStore(path), try !Store.isPlaintext(path) {
            throw CommandFailure("\(path) is already encrypted", hint: "use 'vein key rotate' for a new key, or 'vein backup' for an encrypted copy",
                                 exitCode: .dataError)
        }
        let source = try Store.open(path, keys: KeyOptions(keyring: nil), mode: .readOnly)
        let result = try StoreCopier.copy(source, to: invocation[destination], protection: .encrypted(SharedOptions.keyOptions(invocation)))
        CopyOutput.print(result, verb: "encrypted copy", invocation: invocation)
    }
}

enum DecryptCommand {
    static let source: ArgumentKey<String> = .required("SRC", help: "The encrypted store.", completion: .file)
    static let destination: ArgumentKey<String> = .required("DEST", help: "The plaintext copy to create. It must not exist.", completion: .file)

    static let spec: CommandSpec = CommandSpec(
        name: "decrypt",
        abstract: "Write a plaintext copy of an encrypted store",
        discussion: """
            Copies every row of SRC (opened with the key options), its _vein_meta and _vein_migrations and the \
            SQLite header values, into a new unencrypted DEST, complete or absent, readable by its owner only \
            (mode 0600). Anyone who can read DEST can read the data: for tests and tools that cannot open \
            SQLCipher files. Neither DEST nor the -wal, -shm and -journal SQLite writes beside it may lead to \
            SRC or its key file (through a link or another name), and a DEST-wal or DEST-journal left there \
            by another store is not replayed into the copy: exit 73, nothing written.
            """,
        arguments: [source, destination],
        options: SharedOptions.keyOptions + [SharedOptions.json, SharedOptions.quiet],
        examples: [("vein decrypt prod.vein debug.vein --key-file prod.key", "A plaintext copy for the sqlite3 shell.")],
        run: run)

    static func run(_ invocation: Invocation) throws {
        let source = try Store.open(invocation[Self.source], keys: SharedOptions.keyOptions(invocation), mode: .readOnly)
        guard source.encryption.isEncrypted else {
            throw CommandFailure("\(source.path) is not encrypted", hint: "copy it with cp, or 'vein backup' while it is in use", exitCode: .dataError)
        }
        let result = try StoreCopier.copy(source, to: invocation[destination], protection: .plaintext)
        CopyOutput.print(result, verb: "plaintext copy", invocation: invocation)
    }
}

enum BackupCommand {
    static let destination: ArgumentKey<String> = .required("DEST", help: "The backup to create. It must not exist.", completion: .file)
    static let newKey: OptionKey<Bool> = .flag("new-key", help: "Encrypt the backup with a fresh random key kept in the keyring.")

    static let spec: CommandSpec = CommandSpec(
        name: "backup",
        abstract: "Take a consistent copy of a store while it is in use",
        discussion: """
            Copies STORE into a new DEST in one read transaction, so other processes go on reading and writing \
            and the copy holds exactly the commits made before it began. DEST is encrypted with STORE's key \
            (kept in the keyring under DEST's path too when STORE's key comes from the keyring, with a record \
            of the backup, its time and the key's fingerprint beside STORE's key, for 'vein key forget'), or with \
            --new-key a fresh random key kept in the keyring. DEST is complete or absent and never replaces a \
            file; neither DEST nor the files SQLite writes beside it may lead to STORE or its key file (through \
            a link or another name). Quiet unless asked (--json prints size, rows and duration), with exit \
            statuses for cron: 0 done, 73 DEST exists, leads to STORE or has a DEST-wal or DEST-journal left \
            beside it, 74 a full disk or an I/O error, 75 \
            STORE busy, 77 wrong key.
            """,
        arguments: [SharedOptions.store, destination],
        options: [newKey, SharedOptions.json, SharedOptions.quiet] + SharedOptions.keyOptions,
        examples: [("vein backup blog.vein /backups/blog-$(date +%F).vein --json", "A nightly backup from cron.")],
        run: run)

    static func run(_ invocation: Invocation) throws {
        let keys = SharedOptions.keyOptions(invocation)
        let store = try SharedOptions.openStore(invocation, mode: .readOnly)
        let protection: StoreCreator.Protection
        switch store.encryption {
        case .plaintext:
            guard !invocation[newKey] else {
                throw CommandFailure("\(store.path) is not encrypted; --new-key needs an encrypted store", hint: "use 'vein encrypt' for an encrypted copy",
                                     exitCode: .usage)
            }
            protection = .plaintext
        case .encrypted(_, let source):
            if invocation[newKey] {
                protection = .existingKey(try CipherKey.random(), source: .keyring, keyring: keys.keyring, app: store.meta.app)
            } else {
                // From the keyring: the backup gets its own item there, and a record of it beside the store's key.
                let keyring = source == .keyring ? keys.keyring : nil
                protection = .existingKey(try store.keyForCopies(), source: source, keyring: keyring, app: store.meta.app,
                                          backupOf: keyring == nil ? nil : store.realPath)
            }
        }
        let result = try StoreCopier.copy(store, to: invocation[destination], protection: protection,
                                          snapshotTaken: TestHooks.backupGate(invocation.environment))
        if invocation.wantsJSON { CopyOutput.print(result, verb: "backup", invocation: invocation) }
    }
}

enum CopyOutput {
    static func print(_ result: StoreCopier.Result, verb: String, invocation: Invocation) {
        if invocation.wantsJSON {
            invocation.console.outJSON(.object(JSONObject([
                ("store", .string(result.creation.path)), ("rows", .int(Int64(result.rows))), ("bytes", .int(Int64(result.bytes))),
                ("durationSeconds", .double(result.durationSeconds)), ("encrypted", .bool(result.creation.encryption.isEncrypted)),
                ("keySource", .string(result.creation.encryption.keySource.kind)),
            ])))
        } else if !invocation.quiet {
            invocation.console.note("wrote \(verb) \(result.creation.path): \(Phrase.rows(result.rows)), \(Phrase.count(result.bytes, "byte"))"
                                    + (result.creation.encryption.isEncrypted ? ", key in the \(result.creation.encryption.keySource)" : ""))
        }
    }
}
