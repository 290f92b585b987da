import Foundation
import VeinCore

/// The article's database of users. `ModelContainer(for: User.self)` keeps the store where Vein keeps an
/// app's default store; the app gives a file instead, or an in-memory store for tests.
final class UserDB: SwiftDatabase {
    typealias T = User
    let container: ModelContainer

    init() throws {
        container = try ModelContainer(for: User.self)
    }

    init(useInMemoryStore: Bool) throws {
        let configuration = ModelConfiguration(for: User.self, isStoredInMemoryOnly: useInMemoryStore)
        container = try ModelContainer(for: User.self, configurations: configuration)
    }

    init(file: URL) throws {
        container = try ModelContainer(for: User.self, configurations: ModelConfiguration(url: file))
    }
}
