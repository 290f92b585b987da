extension ModelContext {
    /// Restricts `descriptor` to the members of `owner`'s to-many `relationship`: in SQL through the
    /// relationship's index (the members' rows are never all read to find the few a condition selects),
    /// with the ids in the relationship's order beside it for that order (no sort keys) and for the
    /// context's pending rows. Links this context has not saved are not in the store: then the ids alone
    /// decide (bound, or applied in memory when there are more than SQLite takes).
    package func restrictToMembers(_ descriptor: inout FetchDescriptor, of owner: ModelObject, _ relationship: String) throws {
        try lock.withLock {
            guard let i = owner.layout.index[relationship], let rel = owner.layout.relationships[i], rel.isToMany,
                  let storage = owner.layout.storage[i] else {
                throw ContextError.unknownField(model: owner.modelName, field: relationship, suggestion: nil)
            }
            guard descriptor.model == rel.target else { throw ContextError.unknownModel(descriptor.model) }
            descriptor.restrictedTo = ids(in: try value(of: owner, relationship))
            if owner.linkChanges.isEmpty, owner.state == .persisted {
                descriptor.members = (storage, owner.id)
            }
        }
    }
}
