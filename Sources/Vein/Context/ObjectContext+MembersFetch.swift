extension ObjectContext {
    /// Restricts `descriptor` to the members of `owner`'s to-many `relationship`: in SQL through the
    /// relationship's index (the members' rows are never all read to find the few a condition selects),
    /// with the ids in the relationship's order beside it for that order (no sort keys) and for the
    /// context's pending rows. Links of this relationship this context has not saved are not in the store:
    /// the ids linked since are added to the SQL, and the current list then decides in memory (the ids
    /// alone decide, bound or in memory, only when more were linked than SQLite takes as arguments).
    package func restrictToMembers(_ descriptor: inout ObjectFetch, of owner: ModelObject, _ relationship: String) throws {
        try lock.withLock {
            guard let i = owner.layout.index[relationship], let rel = owner.layout.relationships[i], rel.isToMany,
                  let storage = owner.layout.storage[i] else {
                throw ContextError.unknownField(model: owner.modelName, field: relationship, suggestion: nil)
            }
            guard descriptor.model == rel.target else { throw ContextError.unknownModel(descriptor.model) }
            descriptor.restrictedTo = ids(in: try value(of: owner, relationship))
            guard owner.state == .persisted else { return }
            // Unsaved links of this relationship: the stored members through the index, OR the ids linked
            // since (the whole list when it was set as a whole), then the current list in memory.
            if let change = owner.linkChanges[i] {
                let linked = change.replaced ? descriptor.restrictedTo ?? [] : change.added
                guard linked.count <= SQLCompiler.maxArguments else { return }
                descriptor.membersLinkedSinceSave = linked
            }
            descriptor.members = (storage, owner.id)
        }
    }
}
