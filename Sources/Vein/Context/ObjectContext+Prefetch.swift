extension ObjectContext {
    /// Loads the targets of `relationships` for all of `owners` (a fetch's result, all of `layout`'s
    /// model) and returns the owners: reading those relationships afterwards finds the targets in the
    /// identity map, and a to-many's list loaded, so a loop over the owners reads no more of the store
    /// (instead of a statement per owner and relationship). One statement per relationship for every
    /// `SQLCompiler.maxArguments` owners. Caller holds the lock.
    func prefetched(_ relationships: [String], of owners: [ModelObject], layout: ModelLayout) throws -> [ModelObject] {
        guard !relationships.isEmpty, !owners.isEmpty else { return owners }
        try registeringRetained {
            for name in relationships {
                guard let i = layout.index[name], let relationship = layout.relationships[i], let storage = layout.storage[i] else {
                    throw ContextError.unknownField(model: layout.model.name, field: name,
                                                    suggestion: Suggestion.closest(to: name, in: layout.columns))
                }
                let target = try self.layout(relationship.target)
                if relationship.isToMany {
                    try prefetchMembers(i, storage, of: owners, target: target)
                } else {
                    try prefetchTargets(i, of: owners, target: target)
                }
            }
        }
        identityMap.keepWhatWasRead()
        return owners
    }

    /// A to-one's targets not held yet, by the ids the owners hold.
    private func prefetchTargets(_ i: Int, of owners: [ModelObject], target: ModelLayout) throws {
        var seen = Set<String>()
        let ids = owners.compactMap { owner -> String? in
            if owner.unloaded.contains(i) { return nil }  // not read by this fetch: nothing to follow
            guard case .string(let id) = owner[column: i], loadedObject(target.model.name, id: id) == nil,
                  seen.insert(id).inserted else { return nil }
            return id
        }
        for chunk in Self.chunks(ids) {
            let statement = try database.cachedStatement(
                "SELECT \(target.selectList) FROM \(target.table) WHERE \(target.table).\(StoreFormat.key) IN (\(SQL.placeholders(chunk.count)))")
            defer { statement.reset() }
            try statement.bind(chunk.map { .text($0) })
            while try statement.step() { _ = try materialize(statement, layout: target) }
        }
    }

    /// A to-many's lists (for the owners that have not read theirs) and its members' rows, with one
    /// statement: each member's row beside its owner, in the relationship's order.
    private func prefetchMembers(_ i: Int, _ storage: RelationshipStorage, of owners: [ModelObject], target: ModelLayout) throws {
        let unread = owners.filter { $0.state == .persisted && $0.unloaded.contains(i) }
        let ownerColumn = target.row.fetchedColumns.count + 1
        for chunk in Self.chunks(unread) {
            let statement = try database.cachedStatement(
                "SELECT \(target.selectList), \"_p\".\"_o\" FROM (\(storage.orderedMembersSQL(ownersIn: "(" + SQL.placeholders(chunk.count) + ")"))) AS \"_p\" "
                    + "JOIN \(target.table) ON \(target.table).\(StoreFormat.key) = \"_p\".\"_m\" ORDER BY \"_p\".\"_o\", \"_p\".\"_k\"")
            defer { statement.reset() }
            try statement.bind(chunk.map { .text($0.id) })
            var members: [String: [String]] = [:]
            while try statement.step() {
                let member = try materialize(statement, layout: target)
                members[statement.string(ownerColumn), default: []].append(member.id)
            }
            for owner in chunk { setLoadedMembers(owner, i, members[owner.id] ?? []) }
        }
    }

    private static func chunks<Element>(_ items: [Element]) -> [ArraySlice<Element>] {
        stride(from: 0, to: items.count, by: SQLCompiler.maxArguments).map { items[$0..<min(items.count, $0 + SQLCompiler.maxArguments)] }
    }
}
