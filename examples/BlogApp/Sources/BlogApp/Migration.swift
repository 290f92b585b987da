import VeinCore

/// Names the app's keys in the keyring, and its manifests.
let appID = "com.example.blog"

/// The plan the first release shipped (the announcement's): one version, nothing to migrate yet.
enum MigrationV1: SchemaMigrationPlan {
    static let schemas: [any VersionedSchema.Type] = [
        V0_0_1.self
    ]

    static let stages: [MigrationStage] = []
}

/// The plan of the second release: every version the app has shipped, oldest first, and one stage per
/// step. The rename and the new optional date need no step; the new required `sortTitle` does: without
/// the `map`, `migrate()` (and `vein migrate check` in CI) would fail on posts left without one.
enum Migration: SchemaMigrationPlan {
    static let schemas: [any VersionedSchema.Type] = [
        V0_0_1.self,
        V0_0_2.self
    ]

    static let stages: [MigrationStage] = [
        .custom(from: V0_0_1.self, to: V0_0_2.self, steps: [
            .map(V0_0_2.Post.self, ["sortTitle": "title.lowercased()"])
        ])
    ]
}
