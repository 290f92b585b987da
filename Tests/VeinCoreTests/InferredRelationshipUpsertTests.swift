import Foundation
import Testing
import VeinCore

/// Relationships written as SwiftData infers them (no `@Relationship`), with an initial value or an
/// optional type, on a model with a unique field: the initial value is not the app's assignment.
enum InferredRelationshipSchema: VersionedSchema {
    static let version = ModelVersion(1, 0, 0)
    static let models: [any PersistentModel.Type] = [Team.self, Player.self]

    @Model final class Team {
        @Attribute(.unique) var code: String
        var players: [Player]? = []
        var captain: Player?

        init(code: String) { self.code = code }
    }

    @Model final class Player {
        var name: String

        init(name: String) { self.name = name }
    }
}

private typealias Team = InferredRelationshipSchema.Team
private typealias Player = InferredRelationshipSchema.Player

/// An insert of a unique value a row holds updates that row and leaves the relationships the new
/// instance never assigned as the store has them, whether `@Relationship` is written or inferred:
/// emptying them would leave the members unlinked.
@Suite struct InferredRelationshipUpsertTests {
    @Test func anUpsertKeepsInferredRelationshipsItNeverAssigned() throws {
        let container = try ModelContainer(for: InferredRelationshipSchema.self, at: nil, appID: "com.example.teams")
        let context = container.context
        let team = Team(code: "A")
        let ada = Player(name: "Ada"), alan = Player(name: "Alan")
        team.players = [ada, alan]
        team.captain = ada
        context.insert(team)
        try context.save()

        let other = container.newContext()
        other.insert(Team(code: "A"))
        try other.save()

        let reader = container.newContext()
        let stored = try #require(try reader.fetch(FetchDescriptor<Team>()).first)
        #expect((stored.players ?? []).map(\.name).sorted() == ["Ada", "Alan"])
        #expect(stored.captain?.name == "Ada")
    }

    @Test func anAssignmentInTheInitializerStillReplaces() throws {
        let container = try ModelContainer(for: InferredRelationshipSchema.self, at: nil, appID: "com.example.teams")
        let context = container.context
        let team = Team(code: "A")
        team.players = [Player(name: "Ada")]
        context.insert(team)
        try context.save()

        let replacement = Team(code: "A")
        replacement.players = [Player(name: "Grace")]
        let other = container.newContext()
        other.insert(replacement)
        try other.save()

        let reader = container.newContext()
        let stored = try #require(try reader.fetch(FetchDescriptor<Team>()).first)
        #expect((stored.players ?? []).map(\.name) == ["Grace"])
    }
}
