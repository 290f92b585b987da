/// Where an import keeps what it must remember until its last record is read (the members of to-many
/// lists, whose rows may come later in the file), so that its memory does not grow with the file: a
/// database of its own, attached to the store's connection, on disk.
///
/// It is SQLite's temporary database file (`ATTACH ''`: made in the temporary directory, deleted when it is
/// detached or the process ends, even by SIGKILL, as it is unlinked when opened). The store's key encrypts
/// it, as an attached database without a key of its own takes the main one: the ids and links of an
/// encrypted store never reach the disk in plaintext (ARCHITECTURE.md I15). (The TEMP database would: SQLCipher does not encrypt
/// it, which is why it is kept in memory, where it would grow with the file.) Its page cache is SQLite's
/// default of 2 MB, as the store's.
final class ImportScratch {
    static let schema = "vein_import"
    /// `(side, owner, member, position)`: member `member` of `owner` at `position` in the to-many `side`
    /// (an index into the import's list of sides), in the order of the key, so that reading it back
    /// groups each owner's members and finding one member of one owner is one seek.
    static let lists = "\"vein_import\".\"lists\""
    /// Members to place at the end of an owner's list, in the order they were read.
    static let appends = "\"vein_import\".\"appends\""

    private let database: Database
    private var attached = false

    /// Attaches the scratch database and creates its tables. Outside any transaction (SQLite attaches only
    /// there).
    init(database: Database) throws {
        self.database = database
        // An empty name is a temporary file only while temp_store says files; the setting is put back at
        // once, so that nothing else of this connection (the TEMP database, sorts) goes to disk unencrypted.
        let previous = try database.scalar("PRAGMA temp_store")?.int64 ?? 0
        try database.setTemporaryStore("FILE")
        do {
            try database.execute("ATTACH DATABASE '' AS \(Self.schema)")
            attached = true
            try database.setTemporaryStore(String(previous))
            try database.execute("""
                CREATE TABLE \(Self.lists) ("side" INTEGER NOT NULL, "owner" TEXT NOT NULL, "member" TEXT NOT NULL, \
                "position" INTEGER NOT NULL, PRIMARY KEY ("side", "owner", "member")) WITHOUT ROWID;
                CREATE TABLE \(Self.appends) ("member" TEXT NOT NULL, "owner" TEXT NOT NULL)
                """)
        } catch {
            detach()
            try? database.setTemporaryStore(String(previous))
            throw error
        }
    }

    /// Detaches the scratch database, which SQLite then deletes. A failure leaves it attached to this
    /// connection until the connection closes (and deletes it then); nothing of the store depends on it.
    func detach() {
        guard attached else { return }
        attached = false
        try? database.execute("DETACH DATABASE \(Self.schema)")
    }

    deinit { detach() }
}
