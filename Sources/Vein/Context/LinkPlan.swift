/// The to-many links a save writes, decided inside its transaction before any row is written
/// (`ObjectContext.planLinks`): what each owner's list loses, and what it gains at which position.
///
/// Positions are decided first because a member whose row this save writes anyway (inserted, or moved
/// to this owner by a change of its to-one), listed through a position column of its own row
/// (`RelationshipStorage.Kind.reverseColumn`), is placed by that write: one write of the row, not a
/// write and then an update. SQLite 3.15 rewrites a whole row on any update, a blob of megabytes too.
struct LinkPlan {
    /// Members unlinked, by owner: written before the placements (a member moved between two owners is
    /// then placed by its new one).
    private var removals: [(storage: RelationshipStorage, owner: String, members: [String])] = []
    /// Members linked at the end of an owner's list, at positions after the highest stored one (read
    /// before this save's writes), that no row's write writes.
    private var placements: [(storage: RelationshipStorage, owner: String, member: String, position: Int64)] = []
    /// The positions written with the member's row (its insert or update), by the member and its to-one column.
    private var placedWithRow: [MemberColumn: Int64] = [:]

    private struct MemberColumn: Hashable {
        let member: ObjectIdentifier
        let column: Int
    }

    mutating func remove(_ members: [String], from owner: String, on storage: RelationshipStorage) {
        removals.append((storage, owner, members))
    }

    mutating func place(_ member: String, of owner: String, at position: Int64, on storage: RelationshipStorage) {
        placements.append((storage, owner, member, position))
    }

    /// `member`'s row, written by this save, carries its position in the list its to-one column `i` names.
    mutating func placeWithRow(_ member: ModelObject, column i: Int, at position: Int64) {
        placedWithRow[MemberColumn(member: ObjectIdentifier(member), column: i)] = position
    }

    /// The position the write of `member`'s row writes for its to-one column `i`; nil when it writes none.
    func positionWrittenWithRow(of member: ModelObject, column i: Int) -> Int64? {
        placedWithRow.isEmpty ? nil : placedWithRow[MemberColumn(member: ObjectIdentifier(member), column: i)]
    }

    /// Writes the removals, then the placements (`LinkWriter`); the rows' writes wrote the rest.
    func write(to database: Database) throws {
        let writer = LinkWriter(database: database)
        for removal in removals { try writer.remove(removal.members, from: removal.owner, on: removal.storage) }
        for placement in placements { try writer.place(placement.member, of: placement.owner, at: placement.position, on: placement.storage) }
    }
}
