/// The one writer of to-many links: the context's save and the importer place, append and remove members
/// through it, so where a member goes in its owner's list is decided in one place (`RelationshipStorage`
/// says how a side is stored; this says how a list changes).
///
/// Only sides that write links (`RelationshipStorage.writesLinks`) come here; a to-one is a column of its
/// row, and the other side of a shared link table is written through its canonical side.
struct LinkWriter {
    let database: Database

    /// Puts `members` at the end of `owner`'s list, in order, after its highest position: one seek on the
    /// (owner, position) index, so appending costs the same to a long list as to an empty one.
    func append(_ members: some Sequence<String>, to owner: String, on storage: RelationshipStorage) throws {
        var position = try nextPosition(of: owner, on: storage)
        let statement = try database.cachedStatement(storage.placeSQL)
        for member in members {
            defer {
                statement.reset()
                position += 1
            }
            try statement.bind([.text(owner), .text(member), .integer(position)])
            try statement.step()
        }
    }

    /// The position after the highest in `owner`'s list (1 for an empty list): one seek on the
    /// (owner, position) index.
    func nextPosition(of owner: String, on storage: RelationshipStorage) throws -> Int64 {
        (try database.scalar(storage.maxPositionSQL, [.text(owner)])?.int64 ?? 0) + 1
    }

    /// Puts `member` at `position` of `owner`'s list (positions count from 1). Returns whether a row took
    /// it: on a side kept as the members' to-one, a member that does not name the owner is not placed.
    @discardableResult
    func place(_ member: String, of owner: String, at position: Int64, on storage: RelationshipStorage) throws -> Bool {
        let statement = try database.cachedStatement(storage.placeSQL)
        defer { statement.reset() }
        try statement.bind([.text(owner), .text(member), .integer(position)])
        try statement.step()
        return database.changes > 0
    }

    /// Puts `members` at positions 1, 2, … of `owner`'s list (a list written whole, as an import does).
    func placeAll(_ members: [String], of owner: String, on storage: RelationshipStorage) throws {
        for (k, member) in members.enumerated() { try place(member, of: owner, at: Int64(k + 1), on: storage) }
    }

    /// Takes `members` out of `owner`'s list; the others keep their positions.
    func remove(_ members: some Sequence<String>, from owner: String, on storage: RelationshipStorage) throws {
        let statement = try database.cachedStatement(storage.removeSQL)
        for member in members {
            defer { statement.reset() }
            try statement.bind([.text(owner), .text(member)])
            try statement.step()
        }
    }

    /// Empties `owner`'s list in a link table it owns (a row replaced by an import takes its record's lists).
    func removeAll(from owner: String, on storage: RelationshipStorage) throws {
        try database.execute(storage.removeAllSQL, [.text(owner)])
    }
}
