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

    /// SwiftData code assigns in declaration order; a `var` before a `let` gets the compiler's "'self' used
    /// in property access … before all stored properties are initialized", which names neither cause nor
    /// fix. @Model names both, and the fix-it moves the `let`s up.
    @Test func aLetAssignedAfterAVarIsDiagnosedWithAFixIt() throws {
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
        let expansion = MacroExpansion(source)
        #expect(expansion.messages == ["assign 'let' property 'createdAt' before 'name': a persisted 'let' is stored in the "
            + "object itself and a 'var' is read and written through it, so Swift allows the 'var' only once every 'let' has its value"])
        let diagnostic = try #require(expansion.diagnostics.first)
        #expect(expansion.location(of: diagnostic) == "9:9")
        #expect(diagnostic.fixIts.first?.message.message == "assign the 'let' properties first")
        #expect(expansion.applyingFixIt(of: diagnostic) == """
            @Model final class Contact {
                var name: String
                let createdAt: Date
                var kind: String
                let source: String
                init(name: String, kind: String, createdAt: Date, from origin: String) {
                    self.createdAt = createdAt
                    source = origin
                    self.name = name
                    self.kind = kind
                }
            }
            """)
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
