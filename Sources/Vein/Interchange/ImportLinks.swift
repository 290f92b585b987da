/// The to-many lists of an import (since store format 2, `RelationshipStorage`), and the pass after the last
/// record that writes them and checks them against the other side.
///
/// A record states its own to-one values and its own lists. After the import, each record of the file
/// reads back as the file says, and records that are not in the file keep their own to-one values:
/// - A list kept in a link table by this side (`Item.tags` of a many-to-many, or a to-many without an
///   inverse) is the owner's links, written with its row (`ModelWriter` drops a replaced owner's old ones).
/// - A to-many kept as its members' to-one (`Post.attachments`, through `Attachment.post`) orders the
///   members that name the owner. Each member must name it, and every row that names it must be listed:
///   a list that leaves out a row still naming its owner is refused (a plain import and an upsert alike),
///   since making it true would change a to-one the file does not give. A row that comes to name an
///   owner not in the file goes at the end of that owner's list; one that keeps its owner keeps its place.
/// - The other side of a many-to-many (`Tag.items`) is the same links seen from the members: members it
///   lists and do not list it are linked at the end of their lists, links it leaves out are removed, and
///   when the member is in the file too, both must agree.
/// What is remembered until then is on disk, in `ImportScratch`.
final class ImportLinks {
    private let database: Database
    private let manifest: SchemaManifest
    private let scratch: ImportScratch
    /// The sides kept in the scratch database (positions of `Post.attachments`, lists of `Tag.items`),
    /// numbered in the order first met.
    private var sides: [RelationshipStorage: Int] = [:]

    init(database: Database, manifest: SchemaManifest) throws {
        self.database = database
        self.manifest = manifest
        scratch = try ImportScratch(database: database)
    }

    /// Detaches the scratch database (after the import's transaction).
    func close() { scratch.detach() }

    /// The lists of a row just written.
    func record(_ row: ModelWriter.Row) throws {
        for (storage, members) in row.lists where !members.isEmpty {
            if storage.kind == .linkTable && storage.isCanonical {
                try links.placeAll(members, of: row.id, on: storage)
                continue
            }
            let side: Int
            if let known = sides[storage] { side = known } else {
                side = sides.count
                sides[storage] = side
            }
            let insert = try database.cachedStatement("INSERT INTO \(ImportScratch.lists) (\"side\", \"owner\", \"member\", \"position\") VALUES (?1, ?2, ?3, ?4)")
            for (k, member) in members.enumerated() {
                defer { insert.reset() }
                try insert.bind([.integer(Int64(side)), .text(row.id), .text(member), .integer(Int64(k + 1))])
                try insert.step()
            }
        }
    }

    /// After the last record: places the members of every list read, and checks both sides. `firstRowid`
    /// gives, for a model the file has rows of, the first rowid the import gave one (`ModelWriter`).
    func write(firstRowid: (String) -> Int64?, problems: inout ImportProblems) throws {
        for storage in RelationshipStorage.all(in: manifest) where storage.isToMany {
            switch storage.kind {
            case .reverseColumn: try placeMembers(storage, firstRowid: firstRowid, problems: &problems)
            case .linkTable where !storage.isCanonical: try linkMembers(storage, firstRowid: firstRowid, problems: &problems)
            default: break
            }
        }
    }

    private var q: (String) -> String { SQL.quoteIdentifier }
    private var links: LinkWriter { LinkWriter(database: database) }

    /// Reads the scratch list of `side` in key order (grouped by owner), calling `body(owner, member, position)`.
    private func forEachListed(_ side: Int, _ body: (String, String, Int64) throws -> Void) throws {
        let rows = try database.makeStatement("SELECT \"owner\", \"member\", \"position\" FROM \(ImportScratch.lists) WHERE \"side\" = ?1")
        try rows.bind([.integer(Int64(side))])
        while try rows.step() { try body(rows.string(0), rows.string(1), rows.int64(2)) }
    }

    /// The ids of the rows of `model` the file holds, in the order read.
    private func forEachOwnerInFile(_ model: String, _ firstRowid: Int64?, _ body: (String) throws -> Void) throws {
        guard let firstRowid else { return }
        let rows = try database.makeStatement("SELECT \(StoreFormat.key) FROM \(q(model)) WHERE _rowid_ >= ?1")
        try rows.bind([.integer(firstRowid)])
        while try rows.step() { try body(rows.string(0)) }
    }

    /// Steps through the rows of `sql`, calling `body` with the first column of each.
    private func forEachID(_ sql: String, _ arguments: [DatabaseValue], _ body: (String) throws -> Void) throws {
        let rows = try database.cachedStatement(sql)
        defer { rows.reset() }
        try rows.bind(arguments)
        while try rows.step() { try body(rows.string(0)) }
    }

    /// Adds "N rows <verb> <what>" at `location` when there are any, the verb given as it goes with a
    /// plural ("are", "point to") and made to agree.
    private func report(_ problems: inout ImportProblems, _ location: String, _ count: Int, _ verb: String, _ what: String) {
        if count > 0 { problems.add(location, "\(Phrase.rows(count, verb)) \(what)") }
    }

    /// Whether the row of `model` with `id` is one of the file's.
    private func isInFile(_ model: String, _ id: String, _ firstRowid: Int64?) throws -> Bool {
        guard let firstRowid else { return false }
        return try database.scalar("SELECT _rowid_ >= ?2 FROM \(q(model)) WHERE \(StoreFormat.key) = ?1", [.text(id), .integer(firstRowid)]) == .integer(1)
    }

    /// A to-many kept as its members' to-one (`Post.attachments` through `Attachment.post`).
    private func placeMembers(_ storage: RelationshipStorage, firstRowid: (String) -> Int64?, problems: inout ImportProblems) throws {
        let target = q(storage.target), inverse = q(storage.inverseColumn!), position = q(storage.positionColumn!)
        let name = "\(storage.model).\(storage.name)", inverseName = "\(storage.target).\(storage.inverseColumn!)"
        // 1. Each listed member takes its place; it must exist and name the owner.
        // The list is read grouped by owner: an owner is counted once however many of its members fail.
        var notNamingBack = OwnerCount(), missing = OwnerCount()
        if let side = sides[storage] {
            try forEachListed(side) { owner, member, k in
                guard try !links.place(member, of: owner, at: k, on: storage) else { return }
                if try database.scalar("SELECT 1 FROM \(target) WHERE \(StoreFormat.key) = ?1", [.text(member)]) == nil {
                    missing.add(owner)
                } else {
                    notNamingBack.add(owner)
                }
            }
        }
        report(&problems, name, notNamingBack.count, "are", "not listed back by \(inverseName) (\(notNamingBack.text))")
        report(&problems, name, missing.count, "point to",
               "\(storage.target) rows that do not exist (\(missing.text)); every id must be in the file or the store")
        // 2. Every row naming an owner of the file is in its list.
        var unlisted = SampleList()
        let side = sides[storage] ?? -1
        let unlistedSQL = "SELECT \"_m\".\(StoreFormat.key) FROM \(target) AS \"_m\" WHERE \"_m\".\(inverse) = ?1 AND NOT EXISTS (SELECT 1 FROM \(ImportScratch.lists) "
            + "WHERE \"side\" = ?2 AND \"owner\" = ?1 AND \"member\" = \"_m\".\(StoreFormat.key))"
        try forEachOwnerInFile(storage.model, firstRowid(storage.model)) { owner in
            try forEachID(unlistedSQL, [.text(owner), .integer(Int64(side))]) { unlisted.add($0) }
        }
        report(&problems, inverseName, unlisted.count, "are", "not listed back by \(name) (\(unlisted.text))")
        // 3. Rows of the file that came to name an owner not in the file: at the end of its list, in the
        // order read (collected first: the table is not changed under its own scan).
        guard problems.isEmpty, let first = firstRowid(storage.target) else { return }
        try database.execute("INSERT INTO \(ImportScratch.appends) (\"member\", \"owner\") SELECT \(StoreFormat.key), \(inverse) FROM \(target) "
                             + "WHERE _rowid_ >= ?1 AND \(inverse) IS NOT NULL AND \(position) IS NULL", [.integer(first)])
        let appends = try database.makeStatement("SELECT \"member\", \"owner\" FROM \(ImportScratch.appends) ORDER BY _rowid_")
        while try appends.step() {
            try links.append([appends.string(0)], to: appends.string(1), on: storage)
        }
        try database.execute("DELETE FROM \(ImportScratch.appends)")
    }

    /// The other side of a many-to-many (`Tag.items`), whose links the canonical side (`Item.tags`) holds.
    private func linkMembers(_ storage: RelationshipStorage, firstRowid: (String) -> Int64?, problems: inout ImportProblems) throws {
        let canonical = RelationshipStorage(model: manifest.model(named: storage.target)!,
                                            relationship: manifest.model(named: storage.target)!.relationship(named: storage.relationship.inverse!)!,
                                            in: manifest)
        let link = q(storage.linkTable!)
        let name = "\(storage.model).\(storage.name)", canonicalName = "\(canonical.model).\(canonical.name)"
        let membersInFile = firstRowid(canonical.model)
        // 1. Each listed member is linked; a member of the file must list the owner itself.
        var notListingBack = OwnerCount()
        if let side = sides[storage] {
            try forEachListed(side) { owner, member, _ in
                guard try database.scalar("SELECT 1 FROM \(link) WHERE \"owner\" = ?1 AND \"target\" = ?2", [.text(member), .text(owner)]) == nil else { return }
                if try isInFile(canonical.model, member, membersInFile) {
                    notListingBack.add(owner)
                } else {
                    try links.append([owner], to: member, on: canonical)
                }
            }
        }
        report(&problems, name, notListingBack.count, "are", "not listed back by \(canonicalName) (\(notListingBack.text))")
        // 2. Links an owner of the file leaves out: refused when the member is in the file (it lists the
        // owner), removed otherwise (the owner's record says what its list is).
        var leavingOut = SampleList()
        let side = sides[storage] ?? -1
        let leftOut = "FROM \(link) WHERE \"target\" = ?1 AND NOT EXISTS (SELECT 1 FROM \(ImportScratch.lists) "
            + "WHERE \"side\" = ?2 AND \"owner\" = ?1 AND \"member\" = \(link).\"owner\")"
        let inFile = "EXISTS (SELECT 1 FROM \(q(canonical.model)) AS \"_o\" WHERE \"_o\".\(StoreFormat.key) = \(link).\"owner\" AND \"_o\"._rowid_ >= ?3)"
        try forEachOwnerInFile(storage.model, firstRowid(storage.model)) { owner in
            let arguments: [DatabaseValue] = [.text(owner), .integer(Int64(side)), .integer(membersInFile ?? Int64.max)]
            if try database.scalar("SELECT 1 \(leftOut) AND \(inFile) LIMIT 1", arguments) != nil { leavingOut.add(owner) }
            try database.execute("DELETE \(leftOut) AND NOT \(inFile)", arguments)
        }
        report(&problems, name, leavingOut.count, "leave", "out \(canonical.model) rows that list "
               + "\(Phrase.noun(leavingOut.count, "it", plural: "them")) in \(canonicalName) (\(leavingOut.text))")
    }
}

/// Owners with a problem, read grouped by owner (each owner's rows together): counted once each.
private struct OwnerCount {
    private var list = SampleList()
    private var last: String?

    mutating func add(_ owner: String) {
        guard owner != last else { return }
        last = owner
        list.add(owner)
    }

    var count: Int { list.count }
    var text: String { list.text }
}
