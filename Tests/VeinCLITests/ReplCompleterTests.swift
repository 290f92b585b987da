import Foundation
import Testing
import Vein
@testable import VeinCLI

/// Tab completion from the schema, on the text before the cursor.
@Suite struct ReplCompleterTests {
    let completer: Completer

    init() throws {
        let manifest = try ManifestParser.parse(try String(contentsOfFile: VeinRunner.exampleManifest, encoding: .utf8), file: "blog.json5")
        completer = Completer(manifest: manifest, recentIDs: ["01J0000000000000000000000A", "01J0000000000000000000000B", "01K0000000000000000000000C"])
    }

    func candidates(_ text: String) -> [String] { completer.complete(text).candidates }

    @Test func statementWordsAndModels() {
        #expect(candidates("") == Completer.statementWords + ["Post", "Attachment"])
        #expect(candidates("co") == ["count"])
        #expect(candidates("P") == ["Post"])
        #expect(candidates("count A") == ["Attachment"])
        #expect(candidates("insert ") == ["Post", "Attachment"])
    }

    @Test func fieldsOfTheModelInScope() {
        #expect(candidates("Post where ") == ["title", "content", "views", "publishedAt", "attachments", "where", "sort", "limit", "offset", "true", "false", "nil"])
        #expect(candidates("Post where ti") == ["title"])
        #expect(candidates("Post where views > 1 && ti") == ["title"])
        #expect(candidates("Post where title == \"sort ti") == [])
        #expect(candidates("Post ") == ["where", "sort", "limit", "offset"])
        #expect(candidates("update Post ") == ["where", "sort", "limit", "offset", "set"])
        #expect(candidates("Post sort ") == ["title", "content", "views", "publishedAt", "attachments"])
        #expect(candidates("Post sort views ") == ["asc", "desc", "limit", "offset"])
        #expect(candidates("Post sort views desc, t") == ["title"])
        #expect(candidates("insert Attachment(") == ["name", "fileType", "sizeMiB", "data", "post"])
        #expect(completer.complete("insert Attachment(name: \"a\", fi").appending == ":")
        #expect(candidates("insert Attachment(name: \"a\", fi") == ["fileType"])
        #expect(candidates("update Post where views == 0 set vi") == ["views"])
    }

    @Test func traversalsRelationshipsAndMembers() {
        #expect(candidates(#"Post(#id("01J0000000000000000000000A")).a"#) == ["attachments"])
        #expect(candidates(#"Post(#id("01J0000000000000000000000A")).attachments where si"#) == ["sizeMiB"])
        #expect(candidates("Attachment where post?.ti") == ["title"])
        #expect(candidates("Attachment where name.has") == ["hasPrefix", "hasSuffix"])
        #expect(candidates("Post where attachments.") == ["count", "isEmpty", "contains"])
    }

    @Test func enumCasesDotCommandsAndIds() {
        #expect(candidates("Attachment where fileType == .") == ["png", "jpg", "gif", "swift"])
        #expect(candidates("Attachment where fileType != .g") == ["gif"])
        #expect(candidates("insert Attachment(fileType: .s") == ["swift"])
        #expect(candidates("update Attachment set fileType = .j") == ["jpg"])
        #expect(candidates(".") == DotCommands.names.map { String($0.dropFirst()) })
        #expect(candidates(".mo") == ["models", "mode"])
        #expect(candidates(".schema P") == ["Post"])
        #expect(candidates(".mode j") == ["json", "jsonl"])
        #expect(candidates(".explain Post where vi") == ["views"])
        #expect(candidates(#"get #id(""#) == completer.recentIDs)
        #expect(candidates(#"Post(#id("01J"#) == ["01J0000000000000000000000A", "01J0000000000000000000000B"])
        #expect(completer.complete(#"get #id("01K"#).appending == "\"")
    }
}
