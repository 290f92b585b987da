import SwiftSyntax
import SwiftSyntaxBuilder

/// The spellings of the SwiftData helper library's `@RelationshipQueries` that Vein's generated members say
/// another way: declared unavailable and renamed, so the compiler's error on them is a fix-it to Vein's.
enum HelperSpellings {
    /// `person.pets(filter:sort:)` → `person.pets(where:sort:)`. `filter` has no default, so a call with
    /// no arguments (or `sort:` alone) is Vein's own, never ambiguous.
    static func relatedQueryAlias(_ property: PropertyInfo, access: String) -> DeclSyntax {
        let target = FieldTypeSyntax.elementOfArray(property.type)?.trimmedDescription ?? "Never"
        return """
            @available(*, unavailable, renamed: "\(raw: property.name)(where:sort:)")
            \(raw: access)func \(raw: property.identifier)(filter predicate: VeinCore.MemberPredicate<\(raw: target)>?, sort: [VeinCore.MemberSortDescriptor<\(raw: target)>] = []) throws -> [\(raw: target)] {
                fatalError("unavailable")
            }
            """
    }
}
