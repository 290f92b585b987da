/// An actor that does model work off the main context, as SwiftData writes it:
///
/// ```swift
/// @ModelActor actor Importer {
///     func importAll(_ names: [String]) throws {
///         for name in names { modelContext.insert(Person(name: name)) }
///         try modelContext.save()
///     }
/// }
/// let importer = Importer(modelContainer: container)
/// try await importer.importAll(["Ada", "Grace"])
/// ```
///
/// `@ModelActor` gives the actor `modelContainer`, `modelContext` (a context of its own, made from the
/// container with `ModelContext(container)`, so its unsaved work is its own) and `init(modelContainer:)`.
/// Unlike SwiftData's there is no `modelExecutor`: a Vein context serialises its own work with a lock and
/// may be used from any thread, so the actor runs on Swift's default executor. Other contexts see what
/// the actor saves at their next fetch.
public protocol ModelActor: Actor {
    nonisolated var modelContainer: ModelContainer { get }
    nonisolated var modelContext: ModelContext { get }
}

/// See `ModelActor`. On a class or struct it is an error, with a fix-it that makes it an actor.
@attached(member, names: named(modelContainer), named(modelContext), named(init))
@attached(extension, conformances: ModelActor)
public macro ModelActor() = #externalMacro(module: "VeinMacros", type: "ModelActorMacro")
