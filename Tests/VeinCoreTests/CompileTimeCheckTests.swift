import Foundation
import Testing

/// The misuses of @Model that only the type checker can see, since the macro reads one declaration and
/// not the types it names: the generated code makes them compile-time errors. Each case is compiled as an
/// app would compile it (scripts/typecheck-app: the built VeinCore and the built VeinMacros plugin).
@Suite struct CompileTimeCheckTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let swiftcFound = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains {
        FileManager.default.isExecutableFile(atPath: "\($0)/swiftc")
    }

    /// The compiler's error lines for `source` (an app file importing VeinCore), and its exit status.
    /// `sil`: with the checks after type checking too (definite initialization), as a build runs them.
    static func typecheck(_ source: String, sil: Bool = false) throws -> (errors: [String], status: Int32) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("vein-app-\(UUID().uuidString).swift")
        try source.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [root.appendingPathComponent("scripts/typecheck-app").path] + (sil ? ["--sil"] : []) + [file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        // Each error appears twice (the summary line and the annotated source); the summary lines start
        // with a location.
        let errors = output.split(separator: "\n").filter { !$0.hasPrefix(" ") && $0.contains("error: ") }
            .map { String($0[$0.range(of: "error: ")!.upperBound...]) }
        return (errors, process.terminationStatus)
    }

    static let comment = """
        @Model final class Comment {
            var text: String
            @Relationship var post: Post?
            init(text: String) { self.text = text }
        }
        """

    @Test(.enabled(if: swiftcFound, "swiftc is not on PATH"))
    func aCorrectInverseCompiles() throws {
        let result = try Self.typecheck("""
            import VeinCore
            @Model final class Post {
                @Relationship(inverse: \\Comment.post) var comments: [Comment]
                init() {}
            }
            \(Self.comment)
            """)
        #expect(result.errors == [])
        #expect(result.status == 0)
    }

    @Test(.enabled(if: swiftcFound, "swiftc is not on PATH"))
    func anInverseNamingAFieldOfTheWrongType() throws {
        let result = try Self.typecheck("""
            import VeinCore
            @Model final class Post {
                @Relationship(inverse: \\Comment.text) var comments: [Comment]
                init() {}
            }
            \(Self.comment)
            """)
        #expect(result.errors == ["'named(_:_:from:)' is unavailable: the inverse must be a relationship of the target model back to "
                                  + "this model ('Model?' or '[Model]')"])
        #expect(result.status != 0)
    }

    @Test(.enabled(if: swiftcFound, "swiftc is not on PATH"))
    func aRelationshipToAClassThatIsNotAModel() throws {
        let result = try Self.typecheck("""
            import VeinCore
            final class Plain {}
            @Model final class Post {
                @Relationship var plain: Plain?
                init() {}
            }
            """)
        #expect(result.errors.first == "static method 'toOne(_:_:inverse:deleteRule:originalName:)' requires that 'Plain' conform to 'PersistentModel'")
        #expect(result.status != 0)
    }

    @Test(.enabled(if: swiftcFound, "swiftc is not on PATH"))
    func aFieldOfATypeVeinDoesNotStore() throws {
        let result = try Self.typecheck("""
            import VeinCore
            struct Point { var x = 0.0 }
            @Model final class Shape {
                var origin: Point
                init() { origin = Point() }
            }
            """)
        #expect(result.errors.first == "'field(_:_:lazy:unique:preserveValueOnDeletion:originalName:default:)' is unavailable: a field's type must be Codable "
                + "(a struct, an enum, a collection of Codable values) or a @Model class (a relationship)")
        #expect(result.status != 0)
    }

    /// The announcement's enum (declared `String, RawRepresentablePersistable`, nothing more) compared in a
    /// `#Predicate`, directly and through a to-many: Foundation's predicate expressions take only Codable
    /// values, so the protocol brings Codable (it was "cannot convert value … to closure result type").
    @Test(.enabled(if: swiftcFound, "swiftc is not on PATH"))
    func anEnumFieldComparesInAPredicate() throws {
        let result = try Self.typecheck("""
            import Foundation
            import VeinCore
            @Model final class Post {
                var title: String
                @Relationship(inverse: \\Attachment.post) var attachments: [Attachment]
                init(title: String) { self.title = title }
            }
            @Model final class Attachment {
                @Relationship var post: Post?
                var fileType: FileType
                init(fileType: FileType) { self.fileType = fileType }
                enum FileType: String, RawRepresentablePersistable { case png, jpg }
            }
            func predicates() -> (Predicate<Attachment>, Predicate<Post>) {
                let png = Attachment.FileType.png
                return (#Predicate<Attachment> { $0.fileType == png }, #Predicate<Post> { $0.attachments.contains { $0.fileType == png } })
            }
            """)
        #expect(result.errors == [])
        #expect(result.status == 0)
    }

    /// Each misuse @Model reports is the only error about it: no "stored property … of 'Sendable'-conforming
    /// class is mutable", no "does not conform to protocol 'PersistentModel'", no "cannot find '_$backing'".
    @Test(.enabled(if: swiftcFound, "swiftc is not on PATH"))
    func oneErrorPerMistake() throws {
        let result = try Self.typecheck("""
            import VeinCore
            @Model final class Item {
                var ratio: Float
                var name: String
                @Transient var cache = 0
                init() { ratio = 0; name = "" }
            }
            """)
        #expect(result.errors == [
            "'ratio' has type 'Float', which Vein does not store; use Double (field types: String, Int, Double, Bool, Date, "
                + "Data, UUID, String or Int enums, Codable values, optionals of these) (from macro 'Model ')",
            "@Transient property 'cache' needs a written type ('cache: Int'): Vein keeps its value in lock-protected storage, "
                + "so that the model stays Sendable, and Swift needs the type of such a property (from macro 'Model ')",
        ])
        #expect(result.status != 0)
    }

    /// SwiftData's spellings compile as an app writes them, `@Transient var` included.
    @Test(.enabled(if: swiftcFound, "swiftc is not on PATH"))
    func swiftDataAttributeSpellingsCompile() throws {
        let result = try Self.typecheck("""
            import Foundation
            import VeinCore
            @Model final class Trip {
                #Unique<Trip>([\\.destination])
                @Attribute(.unique) var name: String
                var destination: String
                @Attribute(.externalStorage) var photo: Data?
                @Attribute(.unique, originalName: "code") var sku: String
                @Attribute(.preserveValueOnDeletion) var note: String = ""
                @Attribute(.allowsCloudEncryption, hashModifier: "v2") var secret: String = ""
                @Unique var booking: String = ""
                @Transient var cache: [String: Int] = [:]
                @Transient let fixed = 3
                init(name: String) { self.name = name; destination = ""; sku = name; cache = ["a": 1] }
            }
            """)
        #expect(result.errors == [])
        #expect(result.status == 0)
    }
}
