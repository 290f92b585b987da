import Foundation
import Testing

/// What @Model generates for each attribute (the compiler runs these same implementations through the
/// VeinMacros plugin; VeinCoreTests compiles and runs the result).
@Suite struct ModelMacroTests {
    @Test func aPlainFieldGetsAccessorsATableEntryTheFetchInitAndTheConformances() {
        let expansion = MacroExpansion("""
            @Model final class Note {
                var title: String
                init(title: String) { self.title = title }
            }
            """)
        #expect(expansion.messages == [])
        #expect(expansion.expanded == """
            final class Note {
                var title: String {
                    @storageRestrictions(initializes: _$assigned_title, accesses: _$backing)
                    init(initialValue) {
                        _$assigned_title = VeinCore._Assigned()
                        if !_$backing.initializesRelationship("title", initialValue) {
                            _$backing.setField("title", column: 0, initialValue)
                        }
                    }
                    get {
                        _$backing.field("title", column: 0, as: (String).self)
                    }
                    set {
                        _$backing.setField("title", column: 0, newValue)
                    }
                }

                nonisolated(unsafe) private var _$assigned_title: VeinCore._Assigned
                init(title: String) { self.title = title }

                let _$backing = VeinCore.ModelBacking()

                static var _$modelName: String {
                    "Note"
                }

                static let _$schema = VeinCore.ModelDescription(name: "Note", properties: [
                    .field("title", (String).self),
                    ])

                static var _$propertyNames: [PartialKeyPath<Note>: String] {
                    [
                        \\Note.title: "title",
                    ]
                }

                /// A row a context fetched: its values stay in the engine's object.
                init(_$object object: VeinCore.ModelObject) {
                    _$backing.attach(object)
                    _$assigned_title = VeinCore._Assigned()
                }
            }

            extension Note: VeinCore.PersistentModel, Sendable {
            }
            """)
    }

    /// `#Index` becomes the table's indexes (the key paths' names, in order) and expands to nothing; a name
    /// written in backticks (a Swift keyword) is the manifest's name without them, and keeps them in code.
    @Test func indexesAndNamesInBackticks() {
        let expansion = MacroExpansion("""
            @Model final class `protocol` {
                #Index<`protocol`>([\\.`default`], [\\.n, \\.`default`])
                var `default`: String
                var n: Int
                init() {}
            }
            """)
        #expect(expansion.messages == [])
        let lines = expansion.expanded.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(!lines.contains { $0.hasPrefix("#Index") })
        #expect(lines.contains("_$backing.field(\"default\", column: 0, as: (String).self)"))
        #expect(lines.contains("static let _$schema = VeinCore.ModelDescription(name: \"protocol\", properties: ["))
        #expect(lines.contains(".field(\"default\", (String).self),"))
        #expect(lines.contains("], indexes: [[\"default\"], [\"n\", \"default\"]])"))
        #expect(lines.contains("\"protocol\""))
        #expect(lines.contains("static var _$propertyNames: [PartialKeyPath<`protocol`>: String] {"))
        #expect(lines.contains("\\`protocol`.`default`: \"default\","))
        #expect(lines.contains("extension `protocol`: VeinCore.PersistentModel, Sendable {"))
    }

    @Test func aRenamedModelCarriesItsOriginalName() {
        let expansion = MacroExpansion("""
            @Model(originalName: "Note") final class Memo {
                var text: String
                init() { text = "" }
            }
            """)
        #expect(expansion.messages == [])
        let lines = expansion.expanded.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.contains("], originalName: \"Note\")"))
    }

    /// A line of the generated table for `declaration` inside a model.
    static func tableEntry(_ declaration: String) -> String? {
        let expansion = MacroExpansion("@Model final class M {\n    \(declaration)\n}")
        #expect(expansion.messages == [])
        return expansion.expanded.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.hasPrefix(".field(") || $0.hasPrefix(".toOne(") || $0.hasPrefix(".toMany(") }
    }

    @Test func fieldIsTheDefaultSaidOutLoud() {
        #expect(Self.tableEntry("@Field var name: String") == #".field("name", (String).self),"#)
        #expect(Self.tableEntry("var name: String") == #".field("name", (String).self),"#)
    }

    @Test func lazyField() {
        #expect(Self.tableEntry("@LazyField var data: Data?") == #".field("data", (Data?).self, lazy: true),"#)
    }

    @Test func unique() {
        #expect(Self.tableEntry("@Unique var slug: String") == #".field("slug", (String).self, unique: true),"#)
    }

    @Test func attributeOriginalNameIsTheRename() {
        #expect(Self.tableEntry(#"@Attribute(originalName: "headline") var title: String"#)
                == #".field("title", (String).self, originalName: "headline"),"#)
    }

    @Test func anInitialValueIsTheDefaultAndGoesThroughAnInitAccessor() {
        #expect(Self.tableEntry("var views: Int = 0") == #".field("views", (Int).self, default: 0),"#)
        let expansion = MacroExpansion("@Model final class M {\n    var views: Int = 0\n}")
        #expect(expansion.expanded.contains("""
                    @storageRestrictions(initializes: _$assigned_views, accesses: _$backing)
                    init(initialValue) {
                        _$assigned_views = VeinCore._Assigned()
                        if !_$backing.initializesRelationship("views", initialValue) {
                            _$backing.setField("views", column: 0, initialValue)
                        }
                    }
            """))
    }

    @Test func relationships() {
        #expect(Self.tableEntry("@Relationship var post: Post?") == #".toOne("post", Post.self),"#)
        #expect(Self.tableEntry(#"@Relationship(inverse: \Attachment.post, deleteRule: .cascade) var attachments: [Attachment]"#)
                == #".toMany("attachments", Attachment.self, inverse: VeinCore.Inverse.named("post", \Attachment.post, from: M.self), deleteRule: .cascade),"#)
        #expect(Self.tableEntry(#"@Relationship(deleteRule: .deny) @Attribute(originalName: "owner") var author: Author?"#)
                == #".toOne("author", Author.self, deleteRule: .deny, originalName: "owner"),"#)
        let expansion = MacroExpansion("@Model final class M {\n    @Relationship var tags: [Tag]\n}")
        #expect(expansion.expanded.contains(#"_$backing.toMany("tags", as: Tag.self)"#))
        #expect(expansion.expanded.contains(#"_$backing.setToMany("tags", newValue)"#))
    }

    /// SwiftData's shapes: the argument order `deleteRule:, inverse:`, an optional to-many with an initial
    /// value (set through an init accessor, nil emptying it), and a property whose type is a model without
    /// `@Relationship`, which the type checker classifies through `PropertyDescription.field`'s overloads.
    @Test func swiftDataRelationshipShapes() {
        #expect(Self.tableEntry(#"@Relationship(deleteRule: .cascade, inverse: \Pet.owner) var pets: [Pet]? = []"#)
                == #".toMany("pets", Pet.self, inverse: VeinCore.Inverse.named("owner", \Pet.owner, from: M.self), deleteRule: .cascade),"#)
        #expect(Self.tableEntry("var owner: Person?") == #".field("owner", (Person?).self),"#)
        #expect(Self.tableEntry("var pets: [Pet]? = []") == #".field("pets", ([Pet]?).self, default: []),"#)
        let expansion = MacroExpansion("@Model final class M {\n    @Relationship var pets: [Pet]? = []\n}")
        #expect(expansion.diagnostics.isEmpty)
        #expect(expansion.expanded.contains(#"_$backing.initializeToMany("pets", initialValue ?? [])"#))
        #expect(expansion.expanded.contains(#"_$backing.toMany("pets", as: Pet.self)"#))
        #expect(expansion.expanded.contains(#"_$backing.setToMany("pets", newValue ?? [])"#))
    }

    /// Each field's accessors pass its position among the model's columns: the fields in declaration
    /// order (relationships and what is not persisted do not count), as `ModelDescription` orders them.
    @Test func aFieldsAccessorsPassItsColumn() {
        let expansion = MacroExpansion("""
            @Model final class M {
                var a: Int
                @Relationship var post: Post?
                @Transient let scratch: Int = 0
                static var shared = 0
                @LazyField var b: Data?
                var c: String = ""
            }
            """)
        #expect(expansion.messages == [])
        let lines = expansion.expanded.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.contains("_$backing.field(\"a\", column: 0, as: (Int).self)"))
        #expect(lines.contains("_$backing.setField(\"a\", column: 0, newValue)"))
        #expect(lines.contains("_$backing.field(\"b\", column: 1, as: (Data?).self)"))
        #expect(lines.contains("_$backing.field(\"c\", column: 2, as: (String).self)"))
        #expect(lines.contains("_$backing.setField(\"c\", column: 2, initialValue)"))
        #expect(lines.contains("_$backing.toOne(\"post\", as: Post.self)"))
    }

    @Test func whatIsNotPersistedIsLeftAlone() {
        let expansion = MacroExpansion("""
            @Model final class M {
                static var shared = 0
                let fixed: Int = 1
                var computed: Int { 2 }
                @Transient var scratch: Int = 0
            }
            """)
        #expect(expansion.messages == [])
        #expect(expansion.expanded.contains("ModelDescription(name: \"M\", properties: [])"))
        #expect(!expansion.expanded.contains("_$backing.field"))
    }

    @Test func aPublicModelHasPublicRequirements() {
        let expansion = MacroExpansion("@Model public final class M {\n    public var name: String\n}")
        #expect(expansion.expanded.contains("public let _$backing = VeinCore.ModelBacking()"))
        #expect(expansion.expanded.contains("public static let _$schema"))
        #expect(expansion.expanded.contains("public init(_$object object: VeinCore.ModelObject)"))
    }
}

/// The query @Model generates for each to-many with an inverse (`post.attachments(where:sort:)`), which
/// runs in SQL through `PersistentModel.related`, and the SwiftData helper library's spelling of it
/// (`post.attachments(filter:sort:)`), unavailable and renamed, so that the compiler's error is a fix-it.
@Suite struct RelationshipQueryMacroTests {
    @Test func aToManyWithAnInverseGetsAQueryNamedAfterIt() {
        let expansion = MacroExpansion("""
            @Model final class Post {
                @Relationship(inverse: \\Attachment.post, deleteRule: .cascade) var attachments: [Attachment]
            }
            """)
        #expect(expansion.messages == [])
        #expect(expansion.expanded.contains("""
                /// A row a context fetched: its values stay in the engine's object.
                init(_$object object: VeinCore.ModelObject) {
                    _$backing.attach(object)
                    _$assigned_attachments = VeinCore._Assigned()
                }

                /// The members of `attachments` that `predicate` selects, sorted by `sort` (with none, in the
                /// relationship's order), selected in SQL.
                func attachments(where predicate: VeinCore.MemberPredicate<Attachment>? = nil, sort: [VeinCore.MemberSortDescriptor<Attachment>] = []) throws -> [Attachment] {
                    try related(\\Post.attachments, where: predicate, sort: sort)
                }

                @available(*, unavailable, renamed: "attachments(where:sort:)")
                func attachments(filter predicate: VeinCore.MemberPredicate<Attachment>?, sort: [VeinCore.MemberSortDescriptor<Attachment>] = []) throws -> [Attachment] {
                    fatalError("unavailable")
                }
            }
            """), "\(expansion.expanded)")
    }

    @Test func onlyAToManyWithAnInverseGetsOne() {
        let expansion = MacroExpansion("""
            @Model final class Post {
                @Relationship var tags: [Tag]
                @Relationship(inverse: \\Author.posts) var author: Author?
                var names: [String]
            }
            """)
        #expect(expansion.messages == [])
        #expect(!expansion.expanded.contains("func "))
    }

    @Test func aPublicModelsQueryIsPublic() {
        let expansion = MacroExpansion("@Model public final class Post {\n    @Relationship(inverse: \\Attachment.post) public var attachments: [Attachment]\n}")
        #expect(expansion.expanded.contains("    public func attachments(where predicate: VeinCore.MemberPredicate<Attachment>? = nil"))
    }

    /// The lower of the model's and the property's access: a public model's internal relationship gets an
    /// internal query (a public one could not name an internal member type); a private or fileprivate
    /// relationship gets none; `private(set)` is the setter's access only.
    @Test func aQueryTakesTheLowerAccessOfModelAndProperty() {
        let expansion = MacroExpansion("""
            @Model public final class Post {
                @Relationship(inverse: \\Attachment.post) var attachments: [Attachment]
                @Relationship(inverse: \\Tag.post) package var tags: [Tag]
                @Relationship(inverse: \\Note.post) public private(set) var notes: [Note]
                @Relationship(inverse: \\Draft.post) private var drafts: [Draft]
                @Relationship(inverse: \\Link.post) fileprivate var links: [Link]
            }
            """)
        #expect(expansion.messages == [])
        #expect(expansion.expanded.contains("""
                /// The members of `attachments` that `predicate` selects, sorted by `sort` (with none, in the
                /// relationship's order), selected in SQL.
                func attachments(where predicate: VeinCore.MemberPredicate<Attachment>? = nil, sort: [VeinCore.MemberSortDescriptor<Attachment>] = []) throws -> [Attachment] {
                    try related(\\Post.attachments, where: predicate, sort: sort)
                }
            """), "\(expansion.expanded)")
        #expect(!expansion.expanded.contains("public func attachments"))
        #expect(expansion.expanded.contains("    package func tags(where predicate: VeinCore.MemberPredicate<Tag>? = nil"))
        #expect(expansion.expanded.contains("    public func notes(where predicate: VeinCore.MemberPredicate<Note>? = nil"))
        #expect(!expansion.expanded.contains("func drafts("))
        #expect(!expansion.expanded.contains("func links("))

        let internalModel = MacroExpansion("""
            @Model final class Post {
                @Relationship(inverse: \\Attachment.post) public var attachments: [Attachment]
            }
            """)
        #expect(internalModel.expanded.contains("\n    func attachments(where predicate:"), "\(internalModel.expanded)")
        #expect(!internalModel.expanded.contains("public func attachments"))
    }
}
