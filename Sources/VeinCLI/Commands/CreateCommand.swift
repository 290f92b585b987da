import Vein

enum CreateCommand {
    static let store: ArgumentKey<String> = .required("STORE", help: "The store file to create. It must not exist.", completion: .file)
    static let schema: OptionKey<String> = .required("schema", value: "MANIFEST", help: "The schema manifest (JSON or JSON5).",
                                                     completion: .fileWithExtensions(["json", "json5"]))
    static let plaintext: OptionKey<Bool> = .flag("plaintext", help: "Do not encrypt the store.")
    static let history: OptionKey<Bool> = .flag("history", help: "Keep a change log of every commit (see 'vein help history').")

    static let spec: CommandSpec = CommandSpec(
        name: "create",
        abstract: "Create a new store from a schema manifest",
        discussion: """
            Creates STORE with one table per model of MANIFEST, encrypted with SQLCipher (4096-byte pages). \
            The store appears whole or not at all: it is built under a temporary name and linked into place. \
            A STORE-wal or STORE-journal already there (left by a store moved away without it) is refused with \
            exit 73: SQLite would replay it into the new store, and it may hold that store's last commits.

            The key: with --key-file FILE, the key in FILE, or a new random key written to FILE (mode 0600) \
            when FILE does not exist (never at STORE or its -wal, -shm or -journal, where SQLite would write over \
            it: exit 73); with --key-env VAR or VEIN_KEY, that key; with --passphrase, a passphrase \
            asked twice. Otherwise vein makes a random 256-bit key and keeps it in the Secret Service keyring \
            under the store's real path; if no keyring is reachable nothing is created (exit 69). A passphrase \
            shorter than 12 characters is refused unless --weak-passphrase is given, and hex of the wrong length \
            for a raw key (64 digits) is refused as a mistyped key.
            """,
        arguments: [store],
        options: [schema, plaintext, history] + SharedOptions.keyOptions + [SharedOptions.weakPassphrase, SharedOptions.json, SharedOptions.quiet],
        examples: [
            ("vein create blog.vein --schema blog.json5", "An encrypted store whose key is kept in the keyring."),
            ("vein create blog.vein --schema blog.json5 --key-file blog.key", "An encrypted store with a new key in blog.key."),
            ("vein create test.vein --schema blog.json5 --plaintext", "An unencrypted store, for tests."),
            ("vein create blog.vein --schema blog.json5 --history", "A store that remembers every change ('vein history')."),
        ],
        run: run)

    static func run(_ invocation: Invocation) throws {
        let schemaPath = invocation[schema]
        if invocation[plaintext], invocation[SharedOptions.keyFile] != nil || invocation[SharedOptions.keyEnv] != nil
            || invocation[SharedOptions.passphrase] {
            throw UsageError(message: "--plaintext cannot be combined with a key option", command: "create")
        }
        let manifest = try SchemaManifest.load(path: schemaPath)
        let protection: StoreCreator.Protection = invocation[plaintext]
            ? .plaintext : .encrypted(SharedOptions.keyOptions(invocation))
        let result = try StoreCreator.create(at: invocation[store], manifest: manifest, protection: protection,
                                             keepsChangeLog: invocation[history])

        if invocation.wantsJSON {
            invocation.console.outJSON(.object(JSONObject([
                ("store", .string(result.path)),
                ("app", .string(manifest.app)),
                ("schemaVersion", .string(manifest.version.description)),
                ("models", .array(manifest.models.map { .string($0.name) })),
                ("encrypted", .bool(result.encryption.isEncrypted)),
                ("history", .bool(invocation[history])),
                ("keySource", .string(result.encryption.keySource.kind)),
                ("generatedKey", .bool(result.generatedKey)),
            ])))
        } else if !invocation.quiet {
            let protectionText: String
            switch result.encryption {
            case .plaintext: protectionText = "not encrypted"
            case .encrypted(_, let source):
                protectionText = result.generatedKey ? "encrypted, new key in the \(source)" : "encrypted with the \(source)"
            }
            let count = manifest.models.count
            let historyText = invocation[history] ? ", keeping a change log" : ""
            invocation.console.out("created \(result.path): \(manifest.app) \(manifest.version), \(Phrase.count(count, "model")), \(protectionText)\(historyText)")
        }
    }
}
