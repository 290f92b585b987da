import Testing

/// `@ModelActor`: the members SwiftData's macro gives an actor (its container, a context of its own,
/// `init(modelContainer:)`) and the `ModelActor` conformance; on anything but an actor, one diagnostic
/// whose fix-it makes it an actor.
@Suite struct ModelActorMacroTests {
    @Test func anActorGetsItsContainerContextAndInitializer() {
        let expansion = MacroExpansion("""
            @ModelActor actor Importer {
                func importAll() throws {
                    try modelContext.save()
                }
            }
            """)
        #expect(expansion.messages == [])
        #expect(expansion.expanded == """
            actor Importer {
                func importAll() throws {
                    try modelContext.save()
                }

                nonisolated let modelContainer: VeinCore.ModelContainer

                nonisolated let modelContext: VeinCore.ModelContext

                init(modelContainer: VeinCore.ModelContainer) {
                    self.modelContainer = modelContainer
                    self.modelContext = VeinCore.ModelContext(modelContainer)
                }
            }

            extension Importer: VeinCore.ModelActor {
            }
            """)
    }

    @Test func aClassIsAnErrorWhoseFixItMakesItAnActor() throws {
        let expansion = MacroExpansion("@ModelActor final class Importer {\n}")
        #expect(expansion.messages == ["@ModelActor applies to an actor, not to a class: its context is used from the actor's "
            + "methods, one call at a time"])
        let diagnostic = try #require(expansion.diagnostics.first)
        #expect(expansion.location(of: diagnostic) == "1:1")
        #expect(diagnostic.fixIts.map(\.message.message) == ["make it an actor"])
        #expect(expansion.applyingFixIt(of: diagnostic) == "@ModelActor final actor Importer {\n}")
        #expect(!expansion.expanded.contains("extension Importer"))
    }

    @Test func aStructAndAnEnumToo() throws {
        let structExpansion = MacroExpansion("@ModelActor struct Importer {\n}")
        #expect(structExpansion.messages == ["@ModelActor applies to an actor, not to a struct: its context is used from the actor's "
            + "methods, one call at a time"])
        #expect(structExpansion.applyingFixIt(of: try #require(structExpansion.diagnostics.first)) == "@ModelActor actor Importer {\n}")
        let enumExpansion = MacroExpansion("@ModelActor enum Importer {\n}")
        #expect(enumExpansion.messages.first?.hasPrefix("@ModelActor applies to an actor, not to an enum:") == true)
    }
}
