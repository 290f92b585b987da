import Foundation
import Testing
import struct Vein.ManifestParser
import VeinCore

/// A VersionedSchema's manifest is the canonical manifest the CLI reads (docs/manifest.md).
@Suite struct VersionedSchemaTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: fixtures.appendingPathComponent(name))
    }

    /// The hand-written manifest file and the Swift declaration are one schema: the CLI's parser gives the
    /// same canonical text (the one `_vein_meta` stores, whose SHA-256 identifies the schema).
    @Test func blogManifestEqualsTheHandWrittenFile() throws {
        let file = try ManifestParser.parse(String(decoding: try Self.fixture("blog-0.0.1.json5"), as: UTF8.self), file: "blog-0.0.1.json5")
        let declared = try V0_0_1.manifest(appID: "com.example.blog")
        #expect(declared.canonicalText == file.canonicalText)
        #expect(declared.sha256 == file.sha256)
    }

    /// Byte for byte against the committed canonical text (made once from the hand-written file by the
    /// engine's parser): a change to the macro's output order or shape shows here.
    @Test func blogManifestEqualsTheCommittedCanonicalTextByteForByte() throws {
        let declared = try V0_0_1.manifest(appID: "com.example.blog")
        #expect(Data((declared.canonicalText + "\n").utf8) == (try Self.fixture("blog-0.0.1.canonical.json")))
    }

    /// Key paths name fields without reflection (what sorts and predicates on key paths translate through).
    @Test func keyPathsNameTheirProperties() {
        #expect(Post.propertyName(for: \Post.title) == "title")
        #expect(Post.propertyName(for: \Post.attachments) == "attachments")
        #expect(Attachment.propertyName(for: \Attachment.data) == "data")
        #expect(Post.propertyName(for: \Post.id) == nil, "not a persisted property")
    }

    @Test func theManifestReadsAsTheCLIReadsIt() throws {
        let manifest = try V0_0_1.manifest(appID: "com.example.blog")
        let post = try #require(manifest.model(named: "Post"))
        #expect(post.columnNames == ["title", "content", "views", "publishedAt", "attachments"])
        #expect(post.field(named: "views")?.defaultValue == .int(0))
        #expect(post.relationship(named: "attachments")?.inverse == "post")
        let attachment = try #require(manifest.model(named: "Attachment"))
        #expect(attachment.relationship(named: "post")?.inverse == "attachments", "completed from the other side")
        #expect(attachment.field(named: "data")?.isLazy == true)
        #expect(attachment.field(named: "fileType")?.enumValues == [.string("png"), .string("jpg"), .string("gif"), .string("swift")])
    }
}
