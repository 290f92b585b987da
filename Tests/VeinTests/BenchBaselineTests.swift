import Foundation
import Testing
@testable import Vein

/// bench/c/context_bench.c is the baseline Vein's context is measured against: it must lay its tables
/// out exactly as Vein does (issue 11, item 6), or the ratios compare two layouts instead of two programs.
@Suite struct BenchBaselineTests {
    static var programPath: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("bench/c/context_bench.c").path
    }

    /// The string a C initializer `name = "…" "…";` (or `name[] = { "…", "…", };`, item `index`) spells,
    /// its adjacent literals joined and `\"`, `\n` unescaped.
    static func cString(_ name: String, index: Int = 0, in source: String) throws -> String {
        let start = try #require(source.range(of: name + " =") ?? source.range(of: name + "[] ="))
        let rest = source[start.upperBound...]
        let end = try #require(rest.firstIndex(of: ";"))
        var items: [String] = [], current = "", inLiteral = false, escaped = false, any = false
        for c in rest[..<end] {
            if inLiteral {
                if escaped {
                    current.append(c == "n" ? "\n" : c)
                    escaped = false
                } else if c == "\\" {
                    escaped = true
                } else if c == "\"" {
                    inLiteral = false
                } else {
                    current.append(c)
                }
            } else if c == "\"" {
                inLiteral = true
                any = true
            } else if c == "," && any {
                items.append(current)
                current = ""
                any = false
            }
        }
        if any { items.append(current) }
        return try #require(items.indices.contains(index) ? items[index] : nil, "\(name)[\(index)]")
    }

    @Test func theCProgramUsesTheTablesVeinMakes() throws {
        let source = try String(contentsOfFile: Self.programPath, encoding: .utf8)
        let rows = try ManifestParser.parse("""
            { vein: 1, app: "bench", version: "1.0.0", models: { Row: { fields: {
              f0: "int", f1: "int", f2: "int", f3: "int", f4: "int", f5: "int", f6: "int", f7: "int", f8: "int", f9: "int" } } } }
            """, file: "bench")
        #expect(try Self.cString("create_sql", in: source) == SchemaDDL.createStatements(for: rows)[0])
        let blog = try ManifestParser.parse("""
            { vein: 1, app: "bench", version: "1.0.0", models: {
              Post: { fields: { title: "string" }, relationships: { attachments: { to: "Attachment", many: true, inverse: "post", deleteRule: "cascade" } } },
              Attachment: { fields: { name: "string", sizeMiB: "double" }, relationships: { post: { to: "Post", inverse: "attachments" } } } } }
            """, file: "bench-blog")
        let statements = SchemaDDL.createStatements(for: blog)
        #expect(statements.count == 3)
        for (i, statement) in statements.enumerated() {
            #expect(try Self.cString("blog_sql", index: i, in: source) == statement)
        }
    }
}
