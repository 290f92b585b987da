import Foundation
import Testing
@testable import Vein

/// insert and update check each value against its field before anything runs, and say what is wrong
/// with a caret: whether or not a row matches, and for enum cases with the enum's values.
@Suite struct AssignmentCheckTests {
    func failure(_ statement: String) throws -> String? {
        let context = try ArithmeticTrapTests.context(views: [1, 2])
        do { _ = try QueryRunner(context: context).run(statement) } catch let error as ExpressionError { return error.rendered }
        return nil
    }

    @Test func updateIsTypeCheckedWhenNoRowMatches() throws {
        #expect(try failure("update Post where views == 99 set title = 5") == """
            Post.title takes String, not Int
              update Post where views == 99 set title = 5
                                                        ^
            """)
        #expect(try failure("update Post where views == 99 set views = nil")?.hasPrefix("Post.views takes Int, not nil") == true)
        #expect(try failure("update Post where views == 99 set views = \"x\"")?.hasPrefix("Post.views takes Int, not String") == true)
        #expect(try failure("update Post where views == 99 set publishedAt = nil, views = views + 1, title = title + \"!\"") == nil)
    }

    /// An inserted value has no row to read, its members included (a closure over a to-many).
    @Test func anInsertedValueReadsNoRowNorItsMembers() throws {
        let statement = #"insert Post(title: "x", content: "c", views: attachments.filter { $0.sizeMiB > 1 }.count)"#
        let caret = statement.distance(from: statement.startIndex, to: statement.range(of: "count)")!.lowerBound)
        #expect(try failure(statement) == "an inserted value cannot read a field\n  \(statement)\n  \(String(repeating: " ", count: caret))^")
    }

    @Test func anEnumCaseOutsideTheEnumListsItsValues() throws {
        #expect(try failure(#"insert Attachment(name: "a", fileType: .bmp, sizeMiB: 1)"#) == """
            .bmp is not one of the enum's values: .png, .jpg, .gif, .swift
              insert Attachment(name: "a", fileType: .bmp, sizeMiB: 1)
                                                     ^
            """)
        #expect(try failure(#"insert Attachment(name: "a", fileType: .pgn, sizeMiB: 1)"#)?
            .hasPrefix(".pgn is not one of the enum's values: .png, .jpg, .gif, .swift (did you mean '.png'?)") == true)
        #expect(try failure(#"insert Attachment(name: "a", fileType: "bmp", sizeMiB: 1)"#)?
            .hasPrefix("\"bmp\" is not one of the enum's values: .png, .jpg, .gif, .swift") == true)
        #expect(try failure(#"update Attachment where sizeMiB > 1 set fileType = .tiff"#)?
            .hasPrefix(".tiff is not one of the enum's values") == true)
        #expect(try failure(#"insert Attachment(name: "a", fileType: .gif, sizeMiB: 1)"#) == nil)
    }

    @Test func planErrorsAreWordsNotSwiftDebugText() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        try FileManager.default.createDirectory(atPath: dir.path("folder.json5"), withIntermediateDirectories: true)
        try Data([0xFF, 0xFE]).write(to: URL(fileURLWithPath: dir.path("binary.json5")))
        try dir.write("plan.json5", #"{ vein: 1, app: "t", schemas: ["nope.json5", "folder.json5", "binary.json5"], stages: [] }"#)
        do {
            _ = try PlanParser.load(path: dir.path("plan.json5"))
            Issue.record("accepted")
        } catch let error as ManifestError {
            let text = error.lines.joined(separator: "\n")
            #expect(text.contains("schemas[0]: no such file: \(dir.path("nope.json5"))"), "\(text)")
            #expect(text.contains("schemas[1]: cannot read \(dir.path("folder.json5")): it is a directory"), "\(text)")
            #expect(text.contains("schemas[2]: \(dir.path("binary.json5")) is not UTF-8 text"), "\(text)")
            #expect(!text.contains("(\""), "\(text)")
        }
    }
}
