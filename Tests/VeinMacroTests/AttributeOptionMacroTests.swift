import Testing

/// SwiftData's spellings of field options: `@Attribute(.unique)`, `.externalStorage` and the others, with
/// `originalName:`, and `#Unique<Model>([\.field], [\.a, \.b])`, each becoming the manifest's option.
@Suite struct AttributeOptionMacroTests {
    @Test func uniqueAndExternalStorageAreTheManifestsUniqueAndLazy() {
        #expect(ModelMacroTests.tableEntry("@Attribute(.unique) var name: String") == #".field("name", (String).self, unique: true),"#)
        #expect(ModelMacroTests.tableEntry("@Attribute(.externalStorage) var photo: Data?") == #".field("photo", (Data?).self, lazy: true),"#)
        #expect(ModelMacroTests.tableEntry("@Attribute(.unique, .externalStorage) var blob: Data")
                == #".field("blob", (Data).self, lazy: true, unique: true),"#)
        #expect(ModelMacroTests.tableEntry("@Attribute(AttributeOption.unique) var sku: String")
                == #".field("sku", (String).self, unique: true),"#)
    }

    @Test func optionsCombineWithOriginalName() {
        #expect(ModelMacroTests.tableEntry(#"@Attribute(.unique, originalName: "code") var sku: String"#)
                == #".field("sku", (String).self, unique: true, originalName: "code"),"#)
        #expect(ModelMacroTests.tableEntry(#"@Attribute(originalName: "code") var sku: String"#)
                == #".field("sku", (String).self, originalName: "code"),"#)
    }

    /// The value stays in the change log's record of a delete (docs/history.md).
    @Test func preserveValueOnDeletionMarksTheField() {
        #expect(ModelMacroTests.tableEntry("@Attribute(.preserveValueOnDeletion) var note: String")
                == #".field("note", (String).self, preserveValueOnDeletion: true),"#)
        #expect(ModelMacroTests.tableEntry("@Attribute(.unique, .preserveValueOnDeletion) var name: String")
                == #".field("name", (String).self, unique: true, preserveValueOnDeletion: true),"#)
    }

    /// Accepted for SwiftData's sake: the whole store is encrypted.
    @Test func optionsWithoutAnEffectChangeNothing() {
        #expect(ModelMacroTests.tableEntry(#"@Attribute(.allowsCloudEncryption, hashModifier: "v2") var note: String"#)
                == #".field("note", (String).self),"#)
    }

    @Test func uniqueMacroMakesEachListedFieldUnique() {
        let expansion = MacroExpansion("""
            @Model final class Person {
                #Unique<Person>([\\.email], [\\.handle])
                var email: String
                var handle: String
                var name: String
            }
            """)
        #expect(expansion.messages == [])
        #expect(expansion.expanded.contains(#".field("email", (String).self, unique: true),"#))
        #expect(expansion.expanded.contains(#".field("handle", (String).self, unique: true),"#))
        #expect(expansion.expanded.contains(#".field("name", (String).self),"#))
        #expect(!expansion.expanded.contains("#Unique"), "expands to nothing")
    }

    static func uniqueMessages(_ unique: String) -> [String] {
        MacroExpansion("""
            @Model final class Person {
                \(unique)
                var givenName: String
                var familyName: String
                @Relationship var team: Team?
                @Transient var score: Int = 0
                init() {}
            }
            """).messages
    }

    /// A list of several fields is a compound constraint (the manifest's model-level `unique`), next to
    /// the lists of one field, which stay the fields' own `unique`.
    @Test func aCompoundUniqueIsTheManifestsModelLevelUnique() {
        let expansion = MacroExpansion("""
            @Model final class Person {
                #Unique<Person>([\\.givenName, \\.familyName], [\\.email])
                #Index<Person>([\\.familyName])
                var givenName: String
                var familyName: String
                var email: String
            }
            """)
        #expect(expansion.messages == [])
        #expect(expansion.expanded.contains(#".field("email", (String).self, unique: true),"#))
        #expect(expansion.expanded.contains(#".field("givenName", (String).self),"#))
        #expect(expansion.expanded.contains(#"], indexes: [["familyName"]], uniquenessConstraints: [["givenName", "familyName"]])"#))
        // A to-one relationship is a column a combination may include.
        let team = MacroExpansion("@Model final class P {\n    #Unique<P>([\\.name, \\.team])\n    var name: String\n    @Relationship var team: Team?\n}")
        #expect(team.messages == [])
        #expect(team.expanded.contains(#"uniquenessConstraints: [["name", "team"]])"#))
    }

    @Test func aCompoundUniqueOfSomethingNotStoredIsADiagnostic() throws {
        let message = "#Unique key path '\\.score' is not a persisted field or to-one relationship of 'Person': a combination of values "
            + "is unique over stored columns, not to-many relationships or properties Vein does not store"
        #expect(Self.uniqueMessages("#Unique<Person>([\\.givenName, \\.score])") == [message])
        let members = MacroExpansion("@Model final class P {\n    #Unique<P>([\\.a, \\.members])\n    var a: Int\n    @Relationship var members: [P]\n}")
        #expect(members.messages == ["#Unique key path '\\.members' is not a persisted field or to-one relationship of 'P': a combination "
                                     + "of values is unique over stored columns, not to-many relationships or properties Vein does not store"])
        #expect(members.location(of: try #require(members.diagnostics.first)) == "2:22")
        #expect(!members.expanded.contains("uniquenessConstraints"), "a list with a misuse declares nothing")
    }

    @Test func uniqueMisuse() {
        #expect(Self.uniqueMessages("#Unique<Person>([\\.team])")
                == ["#Unique key path '\\.team' is not a persisted field of 'Person': a uniqueness constraint covers fields, "
                    + "not relationships or properties Vein does not store"])
        #expect(Self.uniqueMessages("#Unique<Person>([\\.score])")
                == ["#Unique key path '\\.score' is not a persisted field of 'Person': a uniqueness constraint covers fields, "
                    + "not relationships or properties Vein does not store"])
        #expect(Self.uniqueMessages("#Unique<Team>([\\.givenName])")
                == ["#Unique<Team> in 'Person': a uniqueness constraint is declared in the class it constrains; write #Unique<Person>"])
        #expect(Self.uniqueMessages("#Unique<Person>([\\.team.name])")
                == ["#Unique key path '\\.team.name' goes past 'team': a uniqueness constraint covers fields of 'Person' itself; "
                    + "write \\.team"])
        #expect(Self.uniqueMessages("#Unique<Person>(keys)")
                == ["#Unique takes lists of key paths of 'Person' such as [\\.title]; 'keys' is not one"])
        #expect(Self.uniqueMessages("#Unique<Person>([\\.givenName], [\\.familyName])") == [])
        let misused = MacroExpansion("@Model final class P {\n    #Unique<P>([\\.ratio])\n    var ratio: Float\n}")
        #expect(misused.messages.count == 1, "the field's own misuse, not a second message about #Unique")
    }
}
