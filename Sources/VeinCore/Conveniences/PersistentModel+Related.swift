import Foundation
import Vein

/// A to-many's members queried in SQL (docs/app-guide.md): `post.attachments(where:sort:)`, which @Model generates
/// for each to-many with an inverse, calls `related(\.attachments, where:sort:)`. The members are
/// restricted in SQL through the relationship's index and the condition and sort keys run there too when
/// they translate: a selective condition over a long list reads the few rows it selects, not the list.
extension PersistentModel {
    /// The members of the to-many `keyPath` that `predicate` selects (all without one), sorted by `sort`;
    /// with no sort keys, in the relationship's own order. Unsaved changes count. An instance not inserted
    /// yet has its members in memory: they are filtered and sorted there.
    public func related<Target: PersistentModel>(_ keyPath: KeyPath<Self, [Target]>, where predicate: Predicate<Target>? = nil,
                                                 sort: [SortDescriptor<Target>] = []) throws -> [Target] {
        guard let name = Self.propertyName(for: keyPath), !Self._$schema.isField(name) else {
            throw ModelConvenienceError.notAToManyRelationship(model: Self.modelName)
        }
        guard let owner = _$backing.object else {
            var members = self[keyPath: keyPath]
            if let predicate { members = try members.filter { try predicate.evaluate($0) } }
            return sort.isEmpty ? members : members.sorted(using: sort)
        }
        let (plan, context) = try membersPlan(of: owner, name, where: predicate, sort: sort)
        return try plan.finish(try context.fetch(plan.engine))
    }

    /// The fetch `related` runs (tests explain it).
    func membersPlan<Target: PersistentModel>(of owner: ModelObject, _ relationship: String, where predicate: Predicate<Target>?,
                                             sort: [SortDescriptor<Target>]) throws -> (TypedFetchPlan<Target>, ObjectContext) {
        let context = try owner.context
        var plan = try TypedFetchPlan(FetchDescriptor(predicate: predicate, sortBy: sort), context: context)
        try context.restrictToMembers(&plan.engine, of: owner, relationship)
        return (plan, context)
    }
}
