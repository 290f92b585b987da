import Foundation
import Vein

/// `vein encrypt` and `vein decrypt`: a store copied into a new file (StoreCopier); `vein backup` (BackupCommand.swift) too.
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
