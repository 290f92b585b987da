import Testing

/// A `let` of a model is persisted: Swift lets no macro give a `let` accessors, so it stays a stored
/// property that the fetched-row initializer sets from the row and an insert reads (`_$pendLetValues`).
/// Before, `init(_$object:)` left it unset: "return from initializer without initializing all stored
/// properties", from inside the expansion.
@Suite struct LetPropertyMacroTests {
    static let person = """
        @Model final class Person {
            @Attribute(.unique) let id: UUID
            let firstName: String
            var nickname: String = ""
            let kind = "person"
            init(id: UUID, firstName: String) { self.id = id; self.firstName = firstName }
        }
        """

    @Test func aLetIsAFieldOfTheManifest() {
        let expansion = MacroExpansion(Self.person)
        #expect(expansion.messages == [])
        #expect(expansion.expanded.contains(#".field("id", (UUID).self, unique: true),"#))
        #expect(expansion.expanded.contains(#".field("firstName", (String).self),"#))
        #expect(expansion.expanded.contains(#"\Person.firstName: "firstName","#))
    }

    @Test func aLetKeepsNoAccessorsAndIsSetFromTheRow() {
        let expanded = MacroExpansion(Self.person).expanded
        #expect(expanded.contains("    let id: UUID\n    let firstName: String\n"))
        #expect(expanded.contains("""
                init(_$object object: VeinCore.ModelObject) {
                    _$backing.attach(object)
                    self.id = _$backing.field("id", column: 0, as: (UUID).self)
                    self.firstName = _$backing.field("firstName", column: 1, as: (String).self)
                }
            """))
    }

    @Test func anInsertIsGivenTheLetsValues() {
        #expect(MacroExpansion(Self.person).expanded.contains("""
                func _$pendLetValues() {
                    _$backing.setField("id", column: 0, id)
                    _$backing.setField("firstName", column: 1, firstName)
                }
            """))
    }

    /// A `let` with an initial value cannot be set from a row: it stays a constant of the class.
    @Test func aLetWithAnInitialValueIsNotPersisted() {
        let expanded = MacroExpansion(Self.person).expanded
        #expect(!expanded.contains(#""kind""#))
        #expect(expanded.contains(#"let kind = "person""#))
    }

    @Test func aModelWithoutLetsHasNoPendLetValues() {
        #expect(!MacroExpansion("@Model final class P {\n    var a: Int\n}").expanded.contains("_$pendLetValues"))
    }
}
