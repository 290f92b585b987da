import Foundation
import Observation
import VeinCore

/// A schema for live queries: projects and their chores (related), and settings (related to nothing).
enum ChoreSchema: VersionedSchema {
    static let version = ModelVersion(1, 0, 0)
    static let models: [any PersistentModel.Type] = [Project.self, Chore.self, Setting.self]

    @Model
    final class Project {
        var name: String

        @Relationship(inverse: \Chore.project, deleteRule: .cascade)
        var chores: [Chore] = []

        init(name: String) {
            self.name = name
        }
    }

    @Model
    final class Chore {
        @Relationship
        var project: Project?

        var title: String
        var done: Bool = false

        init(title: String) {
            self.title = title
        }
    }

    @Model
    final class Setting {
        var key: String
        var value: String

        init(key: String, value: String) {
            self.key = key
            self.value = value
        }
    }
}

typealias Project = ChoreSchema.Project
typealias Chore = ChoreSchema.Chore
typealias Setting = ChoreSchema.Setting

enum LiveQueryFixture {
    /// A plaintext store in memory (a private temporary folder): no key needed, also for `vein`.
    static func container() throws -> ModelContainer {
        try ModelContainer(for: ChoreSchema.self, at: nil, appID: "com.example.chores")
    }

    /// A second container on the same file.
    static func containerOnSameFile(as container: ModelContainer) throws -> ModelContainer {
        try ModelContainer(for: ChoreSchema.self, at: container.store.path, appID: "com.example.chores",
                           keyProvider: KeyOptions(keyFile: nil, environment: [:], keyring: nil))
    }

    /// Whether `condition` holds within `timeout` seconds, looked at every 10 ms (a generous bound for a
    /// loaded machine; nothing here measures time).
    static func eventually(within timeout: TimeInterval = 20, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return condition()
    }

    @discardableResult
    static func insert(_ titles: [String], into context: ModelContext, project: Project? = nil) throws -> [Chore] {
        let chores = titles.map(Chore.init)
        for chore in chores {
            chore.project = project
            context.insert(chore)
        }
        try context.save()
        return chores
    }
}

/// Counts the changes Observation reports for `results` of a live query, re-registering after each.
final class ResultsChangeCounter<T: PersistentModel>: @unchecked Sendable {  // `count` behind `lock`
    private let lock = NSLock()
    private var count = 0
    private let query: LiveQuery<T>

    init(_ query: LiveQuery<T>) {
        self.query = query
        track()
    }

    var changes: Int { lock.withLock { count } }

    private func track() {
        withObservationTracking { _ = query.results } onChange: { [weak self] in
            guard let self else { return }
            lock.withLock { count += 1 }
            // Again at once, so no change goes unseen: the registrar has already taken the observers of
            // this change (onChange runs in its willSet), so this one waits for the next.
            self.track()
        }
    }
}
