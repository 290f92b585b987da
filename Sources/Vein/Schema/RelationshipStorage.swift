/// How one relationship is stored (docs/store-format.md, since store format 2), and the SQL every layer uses to read and
/// change it. The one place that knows the layout (ARCHITECTURE.md I7): DDL, the context, the SQL compiler, the verifier,
/// migrations and interchange all ask it.
///
/// - `.column`: a to-one. A nullable TEXT column on the owner named after the relationship, holding the
///   target's id, indexed. When its inverse is a to-many, the owner also carries that to-many's position
///   column (`_vein_pos_<inverse>`, or `_vein_pos_<Target>_<inverse>` when two of the model's to-ones
///   have inverses of that name: `positionColumn(of:on:in:)`), and the index is on (column, position):
///   members in order and the next position (MAX + 1) are both one index seek.
/// - `.reverseColumn`: a to-many whose inverse is a to-one. No column on the owner; its members are the
///   target rows whose inverse column names the owner, in the order of their position column.
/// - `.linkTable`: a many-to-many, or a to-many without an inverse: `_vein_link_<Model>_<relationship>
///   (owner, target, position, PRIMARY KEY(owner, target))`, indexed on (target, owner) and on
///   (owner, position). Both sides of a many-to-many share one table, named after the *canonical* side:
///   the one whose `Model.relationship` sorts first (by model name, then relationship name). The
///   position orders the canonical side's lists; the other side lists its members in id (creation)
///   order, so export → import → export stays byte-identical.
///
/// Every statement reaches rows through an index: the primary key on `id`, a to-one's index, or a link
/// table's key and indexes (`RelationshipLayoutTests` checks the query plans).
package struct RelationshipStorage: Hashable, Sendable {
    package enum Kind: Hashable, Sendable {
        case column
        case reverseColumn
        case linkTable
    }

    /// The model that declares the relationship.
    package let model: String
    package let relationship: RelationshipSchema
    package let kind: Kind
    /// `.column`: the owner's position column for the inverse to-many (nil when the inverse is not a
    /// reverse-column to-many). `.reverseColumn`: the target's position column for this relationship.
    package let positionColumn: String?
    /// `.reverseColumn`: the target's to-one column naming the owner.
    package let inverseColumn: String?
    /// `.linkTable`: the shared table, and which of its columns hold this side's owner and member.
    package let linkTable: String?
    package let isCanonical: Bool

    package var name: String { relationship.name }
    package var target: String { relationship.target }
    package var isToMany: Bool { relationship.isToMany }

    package init(model: ModelSchema, relationship rel: RelationshipSchema, in manifest: SchemaManifest) {
        let inverse = rel.inverse.flatMap { manifest.model(named: rel.target)?.relationship(named: $0) }
        self.model = model.name
        self.relationship = rel
        if !rel.isToMany {
            kind = .column
            positionColumn = inverse.flatMap { $0.isToMany ? Self.positionColumn(of: rel, on: model, in: manifest) : nil }
            inverseColumn = nil
            linkTable = nil
            isCanonical = true
        } else if let inverse, !inverse.isToMany {
            kind = .reverseColumn
            positionColumn = manifest.model(named: rel.target).map { Self.positionColumn(of: inverse, on: $0, in: manifest) }
            inverseColumn = inverse.name
            linkTable = nil
            isCanonical = true
        } else {
            kind = .linkTable
            positionColumn = nil
            inverseColumn = nil
            let canonical = inverse.map { (model.name, rel.name) <= (rel.target, $0.name) } ?? true
            isCanonical = canonical
            linkTable = canonical ? Self.linkTableName(model.name, rel.name) : Self.linkTableName(rel.target, inverse!.name)
        }
    }

    /// The position column that `toOne`'s row (on `model`) carries for its inverse to-many. It is named after
    /// the to-many, which is what it orders; when another to-one of `model` has an inverse to-many of the
    /// same name on another model (`Folder.items` and `Tag.items`, both listing `Item`), each such column is
    /// named after its to-many's model as well, so the two lists keep two columns. A migration that adds or
    /// removes the second list renames the first's column, as the stage planner copies it by name.
    static func positionColumn(of toOne: RelationshipSchema, on model: ModelSchema, in manifest: SchemaManifest) -> String {
        let toMany = toOne.inverse ?? ""
        let shared = model.relationships.contains { other in
            guard other.name != toOne.name, !other.isToMany, let name = other.inverse,
                  name.lowercased() == toMany.lowercased() else { return false }
            return manifest.model(named: other.target)?.relationship(named: name)?.isToMany == true
        }
        return shared ? "_vein_pos_\(toOne.target)_\(toMany)" : "_vein_pos_\(toMany)"
    }
    package static func linkTableName(_ model: String, _ relationship: String) -> String { "_vein_link_\(model)_\(relationship)" }
    package static let linkTablePrefix = "_vein_link_"

    /// Every relationship of a manifest, by model and name.
    package static func all(in manifest: SchemaManifest) -> [RelationshipStorage] {
        manifest.models.flatMap { m in m.relationships.map { RelationshipStorage(model: m, relationship: $0, in: manifest) } }
    }

    // MARK: Names as SQL

    private var q: (String) -> String { SQL.quoteIdentifier }
    private var ownerTable: String { q(model) }
    private var targetTable: String { q(target) }
    /// `.linkTable`: the column holding this side's owner, and the one holding its members.
    package var ownerColumn: String { isCanonical ? "owner" : "target" }
    package var memberColumn: String { isCanonical ? "target" : "owner" }

    // MARK: Reading

    /// Members' ids of the owner bound as `?1`, in the relationship's order.
    package var membersSQL: String { membersSQL(owner: "?1") }

    /// Members' ids (column `_m`) of the owner whose id is the SQL expression `owner`, in order. The
    /// table is aliased `_r`: `owner` may name a column of the same table (a self-relationship).
    package func membersSQL(owner: String) -> String {
        switch kind {
        case .column:
            return "SELECT \"_r\".\(q(name)) AS \"_m\" FROM \(ownerTable) AS \"_r\" WHERE \"_r\".\(StoreFormat.key) = \(owner) AND \"_r\".\(q(name)) IS NOT NULL"
        case .reverseColumn:
            return "SELECT \"_r\".\(StoreFormat.key) AS \"_m\" FROM \(targetTable) AS \"_r\" WHERE \"_r\".\(q(inverseColumn!)) = \(owner) ORDER BY \"_r\".\(q(positionColumn!)), \"_r\".\(StoreFormat.key)"
        case .linkTable:
            let order = isCanonical ? "\"position\", \"target\"" : "\"owner\""
            return "SELECT \"_r\".\(q(memberColumn)) AS \"_m\" FROM \(q(linkTable!)) AS \"_r\" WHERE \"_r\".\(q(ownerColumn)) = \(owner) ORDER BY \"_r\".\(order)"
        }
    }

    /// An SQL expression: the members of the owner `owner` as the JSON array of ids that interchange and
    /// `vein query` show (the format-1 column's text, byte for byte). Ids are ULIDs, never needing escapes.
    package func idArraySQL(owner: String) -> String {
        "COALESCE((SELECT '[' || group_concat('\"' || \"_m\" || '\"', ',') || ']' FROM (\(membersSQL(owner: owner)))), '[]')"
    }

    /// Every (owner, member) pair (verifier, export), grouped by owner, each owner's members in order.
    package var pairsSQL: String {
        switch kind {
        case .column:
            return "SELECT \(StoreFormat.key), \(q(name)) FROM \(ownerTable) WHERE \(q(name)) IS NOT NULL ORDER BY \(StoreFormat.key)"
        case .reverseColumn:
            return "SELECT \(q(inverseColumn!)), \(StoreFormat.key) FROM \(targetTable) WHERE \(q(inverseColumn!)) IS NOT NULL "
                + "ORDER BY \(q(inverseColumn!)), \(q(positionColumn!)), \(StoreFormat.key)"
        case .linkTable:
            let order = isCanonical ? "\"owner\", \"position\", \"target\"" : "\"target\", \"owner\""
            return "SELECT \(q(ownerColumn)), \(q(memberColumn)) FROM \(q(linkTable!)) ORDER BY \(order)"
        }
    }

    /// How many owners have at least one member.
    package var linkedOwnersCountSQL: String {
        switch kind {
        case .column: return "SELECT count(*) FROM \(ownerTable) WHERE \(q(name)) IS NOT NULL"
        case .reverseColumn: return "SELECT count(DISTINCT \(q(inverseColumn!))) FROM \(targetTable) WHERE \(q(inverseColumn!)) IS NOT NULL"
        case .linkTable: return "SELECT count(DISTINCT \(q(ownerColumn))) FROM \(q(linkTable!))"
        }
    }

    /// An SQL expression: the number of members of the owner whose id is the SQL expression `owner`.
    package func countSQL(owner: String) -> String {
        switch kind {
        case .column: return "(\(owner) IS NOT NULL)"
        case .reverseColumn: return "(SELECT count(*) FROM \(targetTable) AS \"_r\" WHERE \"_r\".\(q(inverseColumn!)) = \(owner))"
        case .linkTable: return "(SELECT count(*) FROM \(q(linkTable!)) AS \"_r\" WHERE \"_r\".\(q(ownerColumn)) = \(owner))"
        }
    }

    /// `FROM … WHERE …` selecting the member rows of the owner whose id is the SQL expression `owner`,
    /// the target table aliased `alias` (so a condition on the members can follow with `AND`), reached
    /// through the inverse column's index or the link table's key: the correlated subqueries of
    /// `contains { … }`, `allSatisfy { … }` and `filter { … }.count`.
    package func memberRowsSQL(owner: String, alias: String) -> String {
        let a = q(alias)
        switch kind {
        case .column:
            return "FROM \(targetTable) AS \(a) WHERE \(a).\(StoreFormat.key) = (SELECT \"_o\".\(q(name)) FROM \(ownerTable) AS \"_o\" WHERE \"_o\".\(StoreFormat.key) = \(owner))"
        case .reverseColumn:
            return "FROM \(targetTable) AS \(a) WHERE \(a).\(q(inverseColumn!)) = \(owner)"
        case .linkTable:
            let link = q(alias + "_link")
            return "FROM \(q(linkTable!)) AS \(link) JOIN \(targetTable) AS \(a) ON \(a).\(StoreFormat.key) = \(link).\(q(memberColumn)) "
                + "WHERE \(link).\(q(ownerColumn)) = \(owner)"
        }
    }

    /// An SQL condition: the owner (SQL expression `owner`) has the member bound as the next `?`.
    package func containsSQL(owner: String) -> String {
        switch kind {
        case .column: return "(\(owner) = ?)"
        case .reverseColumn:
            return "EXISTS (SELECT 1 FROM \(targetTable) AS \"_r\" WHERE \"_r\".\(StoreFormat.key) = ? AND \"_r\".\(q(inverseColumn!)) = \(owner))"
        case .linkTable:
            return "EXISTS (SELECT 1 FROM \(q(linkTable!)) AS \"_r\" WHERE \"_r\".\(q(memberColumn)) = ? AND \"_r\".\(q(ownerColumn)) = \(owner))"
        }
    }

    // MARK: Writing (`.reverseColumn` and canonical `.linkTable` sides; the other sides are written
    // through their canonical side, which the context keeps in step)

    /// Whether link changes on this side are written (the other side of a shared link table is not, and a
    /// to-one is written as a column of its row).
    package var writesLinks: Bool { kind == .reverseColumn || (kind == .linkTable && isCanonical) }

    /// The highest position among the owner's members (`?1`), or 0: one seek on the (owner, position) index.
    package var maxPositionSQL: String {
        switch kind {
        case .reverseColumn:
            return "SELECT COALESCE(MAX(\(q(positionColumn!))), 0) FROM \(targetTable) WHERE \(q(inverseColumn!)) = ?1"
        default:
            return "SELECT COALESCE(MAX(\"position\"), 0) FROM \(q(linkTable!)) WHERE \"owner\" = ?1"
        }
    }

    /// Puts member `?2` of owner `?1` at position `?3` (the member's to-one is written with its row).
    package var placeSQL: String {
        switch kind {
        case .reverseColumn:
            return "UPDATE \(targetTable) SET \(q(positionColumn!)) = ?3 WHERE \(StoreFormat.key) = ?2 AND \(q(inverseColumn!)) = ?1"
        default:
            return "INSERT OR REPLACE INTO \(q(linkTable!)) (\"owner\", \"target\", \"position\") VALUES (?1, ?2, ?3)"
        }
    }

    /// Takes member `?2` out of owner `?1`'s list.
    package var removeSQL: String {
        switch kind {
        case .reverseColumn:
            // Its to-one was cleared with its row; a member moved to another owner keeps its new position.
            return "UPDATE \(targetTable) SET \(q(positionColumn!)) = NULL WHERE \(StoreFormat.key) = ?2 AND \(q(inverseColumn!)) IS NULL"
        default:
            return "DELETE FROM \(q(linkTable!)) WHERE \"owner\" = ?1 AND \"target\" = ?2"
        }
    }

    /// Empties owner `?1`'s list in its link table (a canonical link table's side only: a list kept as
    /// its members' to-one is emptied by their rows).
    package var removeAllSQL: String {
        precondition(kind == .linkTable && isCanonical, "\(model).\(name) keeps no links of its own")
        return "DELETE FROM \(q(linkTable!)) WHERE \"owner\" = ?1"
    }

    // MARK: Sets of rows (delete rules and reference checks: one statement per relationship)

    /// The rows holding a reference to any id in `idSet` (an SQL subquery or list), as
    /// `(owner id, member id)` pairs, found through the index on the referencing column.
    package func referencingSQL(targetsIn idSet: String) -> String {
        switch kind {
        case .column:
            return "SELECT \(StoreFormat.key), \(q(name)) FROM \(ownerTable) WHERE \(q(name)) IN \(idSet)"
        case .reverseColumn:
            return "SELECT \(q(inverseColumn!)), \(StoreFormat.key) FROM \(targetTable) WHERE \(StoreFormat.key) IN \(idSet) AND \(q(inverseColumn!)) IS NOT NULL"
        case .linkTable:
            return "SELECT \(q(ownerColumn)), \(q(memberColumn)) FROM \(q(linkTable!)) WHERE \(q(memberColumn)) IN \(idSet)"
        }
    }

    /// The members of the owners in `idSet`, as `(owner id, member id)` pairs named `_o` and `_m`.
    package func membersSQL(ownersIn idSet: String) -> String {
        switch kind {
        case .column:
            return "SELECT \(StoreFormat.key) AS \"_o\", \(q(name)) AS \"_m\" FROM \(ownerTable) WHERE \(StoreFormat.key) IN \(idSet) AND \(q(name)) IS NOT NULL"
        case .reverseColumn:
            return "SELECT \(q(inverseColumn!)) AS \"_o\", \(StoreFormat.key) AS \"_m\" FROM \(targetTable) WHERE \(q(inverseColumn!)) IN \(idSet)"
        case .linkTable:
            return "SELECT \(q(ownerColumn)) AS \"_o\", \(q(memberColumn)) AS \"_m\" FROM \(q(linkTable!)) WHERE \(q(ownerColumn)) IN \(idSet)"
        }
    }

    /// The members of the owners in `idSet`, as `(owner id, member id, order key)` named `_o`, `_m` and
    /// `_k`: ordered by `_o, _k`, each owner's members are in the relationship's order (a prefetch).
    package func orderedMembersSQL(ownersIn idSet: String) -> String {
        switch kind {
        case .column:
            return "SELECT \(StoreFormat.key) AS \"_o\", \(q(name)) AS \"_m\", 0 AS \"_k\" FROM \(ownerTable) WHERE \(StoreFormat.key) IN \(idSet) AND \(q(name)) IS NOT NULL"
        case .reverseColumn:
            return "SELECT \(q(inverseColumn!)) AS \"_o\", \(StoreFormat.key) AS \"_m\", \(q(positionColumn!)) AS \"_k\" FROM \(targetTable) "
                + "WHERE \(q(inverseColumn!)) IN \(idSet)"
        case .linkTable:
            let order = isCanonical ? "\"position\"" : q(memberColumn)
            return "SELECT \(q(ownerColumn)) AS \"_o\", \(q(memberColumn)) AS \"_m\", \(order) AS \"_k\" FROM \(q(linkTable!)) "
                + "WHERE \(q(ownerColumn)) IN \(idSet)"
        }
    }

    // MARK: Delete rules over a save's delete set (`DeleteSet`: one statement per relationship per round)

    /// `cascade`: adds to the delete set, as round `?1 + 1`, the members of this side's owners that
    /// joined it in round `?1` (found through the relationship's index; ids already in the set stay).
    package var cascadeSQL: String {
        "INSERT OR IGNORE INTO \(DeleteSet.table) (\"model\", \"id\", \"round\") SELECT \(SQL.quoteString(target)), \"_m\", ?1 + 1 FROM ("
            + membersSQL(ownersIn: DeleteSet.ids(of: model, round: "?1")) + ")"
    }

    /// `deny`: an owner in the delete set from round `?1` on whose members are not all in it too, with
    /// how many it still names (no row when none refuses). Owners of earlier rounds were checked when
    /// they joined, and the set has only grown since.
    package var deniedSQL: String {
        "SELECT \"_p\".\"_o\", count(*) FROM (\(membersSQL(ownersIn: DeleteSet.ids(of: model, fromRound: "?1")))) AS \"_p\" "
            + "WHERE NOT EXISTS (SELECT 1 FROM \(DeleteSet.table) AS \"_d\" WHERE \"_d\".\"model\" = \(SQL.quoteString(target)) "
            + "AND \"_d\".\"id\" = \"_p\".\"_m\") GROUP BY \"_p\".\"_o\" ORDER BY \"_p\".\"_o\" LIMIT 1"
    }

    /// Clears every reference to the ids in `idSet` held by this relationship (the `nullify` rule, and
    /// links of deleted rows). Nil for a to-many stored as its inverse's column (that column is the
    /// other side's to-one, cleared through it).
    package func clearSQL(targetsIn idSet: String) -> String? {
        switch kind {
        case .column:
            let position = positionColumn.map { ", \(q($0)) = NULL" } ?? ""
            return "UPDATE \(ownerTable) SET \(q(name)) = NULL\(position) WHERE \(q(name)) IN \(idSet)"
        case .reverseColumn: return nil
        case .linkTable: return "DELETE FROM \(q(linkTable!)) WHERE \(q(memberColumn)) IN \(idSet)"
        }
    }

    /// Drops the links of the owners in `idSet` (rows being deleted). Nil where the owner's row holds them.
    package func clearSQL(ownersIn idSet: String) -> String? {
        kind == .linkTable ? "DELETE FROM \(q(linkTable!)) WHERE \(q(ownerColumn)) IN \(idSet)" : nil
    }

    // MARK: Layout

    /// The DDL for a link table and its indexes (canonical sides only; empty otherwise).
    package var linkTableStatements: [String] {
        guard kind == .linkTable, isCanonical, let table = linkTable else { return [] }
        return [createLinkTable(named: table)] + linkIndexStatements
    }

    package var linkIndexStatements: [String] {
        guard kind == .linkTable, isCanonical, let table = linkTable else { return [] }
        return [
            "CREATE INDEX \(q(table + ".target")) ON \(q(table)) (\"target\", \"owner\")",
            "CREATE INDEX \(q(table + ".position")) ON \(q(table)) (\"owner\", \"position\")",
        ]
    }

    /// The link table under `name` (a migration builds it under a temporary name).
    package func createLinkTable(named name: String) -> String {
        "CREATE TABLE \(q(name)) (\"owner\" TEXT NOT NULL, \"target\" TEXT NOT NULL, \"position\" INTEGER NOT NULL, "
            + "PRIMARY KEY (\"owner\", \"target\"))"
    }
}
