/// The names a manifest's layout gives its SQL tables and columns, checked for two things that would share
/// one (docs/store-format.md). Names are derived by joining identifiers with `_`, and identifiers may
/// contain `_`, so two different relationships can derive one name (`_vein_link_A_b_c` from `A.b_c` and
/// from `A_b.c`); SQLite, which ignores case in names, would then refuse the table at `vein create`, or two
/// lists would share a column. The manifest is refused first, naming both.
enum StorageNames {
    /// Two parts of a schema that would be stored under one name.
    struct Collision: Equatable {
        /// The model the problem is reported at: the table holding both columns, or the second table's owner.
        let model: String
        /// `column "…" of Model` or `table "…"`.
        let place: String
        let first: String
        let second: String

        var message: String { "\(first) and \(second) would both be stored as \(place); rename one of them" }
    }

    /// Every collision, in the manifest's order. A field or relationship colliding with another field or
    /// relationship is the parser's own (case-insensitive) rule, so only derived names are compared here.
    static func collisions(in manifest: SchemaManifest) -> [Collision] {
        var result: [Collision] = []
        var tables: [String: String] = [:]
        for model in manifest.models {
            tables[model.name.lowercased()] = "model \(model.name)"
        }
        for model in manifest.models {
            var columns: [String: String] = [:]
            for field in model.fields { columns[field.name.lowercased()] = "\(model.name).\(field.name)" }
            for rel in model.relationships {
                let storage = RelationshipStorage(model: model, relationship: rel, in: manifest)
                switch storage.kind {
                case .column:
                    columns[rel.name.lowercased()] = "\(model.name).\(rel.name)"
                    if let position = storage.positionColumn {
                        let owner = "the order of \(rel.target).\(rel.inverse ?? "")"
                        if let earlier = columns.updateValue(owner, forKey: position.lowercased()) {
                            result.append(Collision(model: model.name, place: "column \"\(position)\" of \(model.name)", first: earlier, second: owner))
                        }
                    }
                case .linkTable where storage.isCanonical:
                    let owner = "\(model.name).\(rel.name)"
                    if let earlier = tables.updateValue(owner, forKey: storage.linkTable!.lowercased()) {
                        result.append(Collision(model: model.name, place: "table \"\(storage.linkTable!)\"", first: earlier, second: owner))
                    }
                default: break
                }
            }
        }
        return result
    }
}
