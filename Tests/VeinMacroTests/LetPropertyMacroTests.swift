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

    /// SwiftData code assigns in declaration order, a `var` before a `let`. Each `var`'s `init` accessor
    /// initializes its stored marker, so Swift takes such an assignment as initialization, not as a use of
    /// `self`: any order compiles (InitializerAssignmentTests compiles one), and @Model has nothing to say.
    /// Before the markers it reported the order, with a fix-it that moved the `let`s up.
    @Test func aLetAssignedAfterAVarIsFine() {
        let source = """
            @Model final class Contact {
                var name: String
                let createdAt: Date
                var kind: String
                let source: String
                init(name: String, kind: String, createdAt: Date, from origin: String) {
                    self.name = name
                    self.kind = kind
                    self.createdAt = createdAt
                    source = origin
                }
            }
            """
        #expect(MacroExpansion(source).messages == [])
    }

    @Test func letsAssignedFirstAreFine() {
        #expect(MacroExpansion(Self.person).messages == [])
        let parameterNamedLikeTheProperty = """
            @Model final class M {
                var name: String
                let id: Int
                init(name: String, id: Int) { self.id = id; self.name = name }
            }
            """
        #expect(MacroExpansion(parameterNamedLikeTheProperty).messages == [])
    }
}
