/// The to-many links a save writes, decided inside its transaction before any row is written
/// (`ObjectContext.planLinks`): what each owner's list loses, and what it gains at which position.
///
/// Positions are decided first because a member this save inserts, listed through a position column
/// of its own row (`RelationshipStorage.Kind.reverseColumn`), is placed by its row's insert: one write
/// a link, as a row written by hand with its position would be, instead of an insert and then an
/// update of the same row.
struct LinkPlan {
    /// Members unlinked, by owner: written before the placements (a member moved between two owners is
    /// then placed by its new one).
    private(set) var removals: [(storage: RelationshipStorage, owner: String, members: [String])] = []
    /// Members linked at the end of an owner's list, at positions after the highest stored one (read
    /// before this save's writes), that no insert writes.
    private(set) var placements: [(storage: RelationshipStorage, owner: String, member: String, position: Int64)] = []
    /// The positions an insert writes with the member's row, by the member and its to-one column.
    private var placedByInsert: [MemberColumn: Int64] = [:]

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

    /// `member`'s row, inserted by this save, carries its position in the list its to-one column `i` names.
    mutating func placeByInsert(_ member: ModelObject, column i: Int, at position: Int64) {
        placedByInsert[MemberColumn(member: ObjectIdentifier(member), column: i)] = position
    }

    /// The position an insert of `member` writes for its to-one column `i`; nil when it writes none.
    func insertedPosition(of member: ModelObject, column i: Int) -> Int64? {
        placedByInsert.isEmpty ? nil : placedByInsert[MemberColumn(member: ObjectIdentifier(member), column: i)]
    }

    /// Writes the removals, then the placements (`LinkWriter`); the inserts wrote the rest.
    func write(to database: Database) throws {
        let writer = LinkWriter(database: database)
        for removal in removals { try writer.remove(removal.members, from: removal.owner, on: removal.storage) }
        for placement in placements { try writer.place(placement.member, of: placement.owner, at: placement.position, on: placement.storage) }
    }
}
