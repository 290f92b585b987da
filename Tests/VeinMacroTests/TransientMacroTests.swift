import Testing

/// `@Transient var`: @Model makes it a computed property over lock-protected storage, so the model stays
/// Sendable; what cannot be converted is one diagnostic, and no other error follows it.
@Suite struct TransientMacroTests {
    @Test func aTransientVarGetsStorageAndAccessors() {
        let expansion = MacroExpansion("""
            @Model final class M {
                @Transient var cache: Int = 0
                var name: String
            }
            """)
        #expect(expansion.messages == [])
        #expect(expansion.expanded.contains("""
                var cache: Int {
                    @storageRestrictions(accesses: _$transient_cache)
                    init(initialValue) {
                        _$transient_cache.set(initialValue)
                    }
                    get {
                        _$transient_cache.get()
                    }
                    set {
                        _$transient_cache.set(newValue)
                    }
                }

                private let _$transient_cache = VeinCore.TransientStorage<Int>()
            """))
        #expect(expansion.expanded.contains("ModelDescription(name: \"M\", properties: [\n        .field(\"name\""), "not in the table")
        #expect(expansion.expanded.contains("extension M: VeinCore.PersistentModel, Sendable {"))
    }

    @Test func anOptionalWithoutInitialValueStartsAsNil() {
        let expansion = MacroExpansion("@Model final class M {\n    @Transient var label: String?\n}")
        #expect(expansion.messages == [])
        #expect(expansion.expanded.contains("private let _$transient_label = VeinCore.TransientStorage<String?>(nil)"))
    }

    @Test func aTransientLetIsLeftAlone() {
        let expansion = MacroExpansion("@Model final class M {\n    @Transient let label = \"x\"\n}")
        #expect(expansion.messages == [])
        #expect(!expansion.expanded.contains("_$transient_"))
    }

    @Test func withoutAWrittenTypeTheFixItWritesTheLiteralsType() throws {
        let expansion = MacroExpansion("@Model final class M {\n    @Transient var cache = 0\n}")
        #expect(expansion.messages == ["@Transient property 'cache' needs a written type ('cache: Int'): Vein keeps its value in "
            + "lock-protected storage, so that the model stays Sendable, and Swift needs the type of such a property"])
        let diagnostic = try #require(expansion.diagnostics.first)
        #expect(expansion.location(of: diagnostic) == "2:20")
        #expect(diagnostic.fixIts.first?.message.message == "write ': Int'")
        #expect(expansion.applyingFixIt(of: diagnostic) == "@Model final class M {\n    @Transient var cache: Int = 0\n}")
        // The property stays stored: checked Sendable would add "stored property … is mutable".
        #expect(expansion.expanded.contains("extension M: VeinCore.PersistentModel, @unchecked Sendable {"))
        #expect(expansion.expanded.contains("let _$backing"), "the other properties' accessors still have their backing")
    }

    @Test func evidentTypesOfOtherInitialValues() throws {
        func fixed(_ declaration: String) throws -> String {
            let expansion = MacroExpansion("@Model final class M {\n    \(declaration)\n}")
            return expansion.applyingFixIt(of: try #require(expansion.diagnostics.first))
        }
        #expect(try fixed("@Transient var ratio = -1.5") == "@Model final class M {\n    @Transient var ratio: Double = -1.5\n}")
        #expect(try fixed("@Transient var seen = [String: Int]()")
                == "@Model final class M {\n    @Transient var seen: [String: Int] = [String: Int]()\n}")
        #expect(try fixed("@Transient var cache = Cache()") == "@Model final class M {\n    @Transient var cache: Cache = Cache()\n}")
    }

    @Test func withoutAnEvidentTypeThereIsNoFixIt() {
        let expansion = MacroExpansion("@Model final class M {\n    @Transient var cache = makeCache()\n}")
        #expect(expansion.messages == ["@Transient property 'cache' needs a written type: Vein keeps its value in "
            + "lock-protected storage, so that the model stays Sendable, and Swift needs the type of such a property"])
        #expect(expansion.diagnostics.first?.fixIts.isEmpty == true)
    }

    @Test func aNonOptionalWithoutInitialValue() {
        let expansion = MacroExpansion("@Model final class M {\n    @Transient var cache: Int\n    init() { cache = 1 }\n}")
        #expect(expansion.messages == ["@Transient property 'cache' needs an initial value: Vein does not store it, and a "
            + "fetched object starts with that value"])
    }

    /// A persisted property's misuse is the only error too: the model is then `@unchecked Sendable`.
    @Test func anyMisuseLeavesNoSendableNoise() {
        let expansion = MacroExpansion("@Model final class M {\n    var ratio: Float\n    var name: String\n}")
        #expect(expansion.messages.count == 1)
        #expect(expansion.expanded.contains("extension M: VeinCore.PersistentModel, @unchecked Sendable {"))
        #expect(expansion.expanded.contains(".field(\"name\", (String).self)"))
    }
}
