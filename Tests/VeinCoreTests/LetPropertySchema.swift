import Foundation
import VeinCore

/// A model with `let` properties, as SwiftData's documentation writes them. `LetPropertyTests` saves,
/// fetches and upserts it.
enum MemberSchema: VersionedSchema {
    static let version = ModelVersion(1, 0, 0)
    static let models: [any PersistentModel.Type] = [Member.self]

    @Model final class Member {
        @Attribute(.unique) let code: UUID
        let firstName: String
        var visits: Int = 0

        init(code: UUID, firstName: String) {
            self.code = code
            self.firstName = firstName
        }
    }
}
typealias Member = MemberSchema.Member
