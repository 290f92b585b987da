import Foundation
import Testing
import Vein
@testable import VeinCore

/// A Codable value holding a set encodes the same text in every process: its sets, at any depth, in the
/// order of their elements' JSON. Swift seeds hashes per process, so a set's own order changes from run to
/// run; before, only a set field itself was sorted, and a set inside a struct came in hash order.
@Suite struct SetSortingEncoderTests {
    struct Profile: Codable, Equatable {
        var name: String
        var tags: Set<String>
        var rooms: [String: Set<Int>]
        var history: [Set<String>]
        var nested: Inner?
    }
    struct Inner: Codable, Equatable {
        var flags: Set<String>
    }

    static func text(_ value: some Encodable) throws -> String {
        guard case .string(let text) = try JSONField.encoded(value) else { throw CancellationError() }
        return text
    }

    @Test func setsAtAnyDepthAreSorted() throws {
        let words = (0..<40).map { "w\($0)" }
        let profile = Profile(name: "Ada", tags: Set(words), rooms: ["b": Set(0..<30), "a": [3, 1, 2]],
                              history: [Set(words.prefix(20))], nested: Inner(flags: Set(words.suffix(25))))
        let text = try Self.text(profile)
        let sortedWords = words.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let json = { (items: [String]) in "[" + items.map { "\"\($0)\"" }.joined(separator: ",") + "]" }
        let ints = (0..<30).map(String.init).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.joined(separator: ",")
        #expect(text == #"{"history":["# + json(Array(words.prefix(20)).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }) + "],"
                + #""name":"Ada","nested":{"flags":"# + json(Array(words.suffix(25)).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }) + "},"
                + #""rooms":{"a":[1,2,3],"b":["# + ints + "]},"
                + #""tags":"# + json(sortedWords) + "}")
        #expect(try JSONDecoder().decode(Profile.self, from: Data(text.utf8)) == profile)
    }

    /// What holds no set encodes exactly as JSONEncoder writes it: stored values keep their text.
    @Test func valuesWithoutSetsKeepJSONEncodersText() throws {
        struct Everything: Codable {
            var date = Date(timeIntervalSince1970: 1_700_000_000.5)
            var data = Data([0, 1, 254, 255])
            var url = URL(string: "https://example.com/a/b?c=d")!
            var decimal = Decimal(string: "12.345")!
            var double = 0.1
            var float: Float = 1.5
            var optional: Int? = nil
            var list = [3, 1, 2]
            var map = ["z": 1, "a": 2]
            var text = "slash / quote \" unicode é"
        }
        let plain = JSONEncoder()
        plain.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for value in [Everything()] {
            #expect(try Self.text(value) == String(decoding: try plain.encode(value), as: UTF8.self))
        }
        #expect(try Self.text(URL(string: "https://example.com/x")!) == String(decoding: try plain.encode(URL(string: "https://example.com/x")!), as: UTF8.self))
        #expect(try Self.text(Date(timeIntervalSince1970: 0)) == String(decoding: try plain.encode(Date(timeIntervalSince1970: 0)), as: UTF8.self))
    }

    /// A set field itself keeps the order it always had.
    @Test func aSetFieldIsSortedAsBefore() throws {
        #expect(try Self.text(Set(["b", "a", "c"])) == #"["a","b","c"]"#)
        #expect(try Self.text(Set([10, 9, 100])) == "[10,100,9]")
    }
}
