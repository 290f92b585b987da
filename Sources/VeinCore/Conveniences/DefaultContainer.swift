import Foundation

extension ModelContainer {
    private static let defaultLock = NSLock()
    nonisolated(unsafe) private static var defaultContainer: ModelContainer?

    /// The container whose context the per-model conveniences use when they are given none
    /// (`Person.fetch(predicate:sort:)`, `Person.upsert(person)`), as the SwiftData helper library's
    /// app-wide context: set it once where the app makes its container. Held strongly until set to nil
    /// (or another); `close()` the container at exit as ever.
    public static var `default`: ModelContainer? {
        get { defaultLock.withLock { defaultContainer } }
        set { defaultLock.withLock { defaultContainer = newValue } }
    }

    /// `context` if given, otherwise the default container's context.
    static func context(_ given: ModelContext?, for method: String) throws -> ModelContext {
        if let given { return given }
        guard let container = ModelContainer.default else { throw ModelConvenienceError.noDefaultContainer(method: method) }
        return container.mainContext
    }
}
