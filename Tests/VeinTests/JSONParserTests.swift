import Foundation
import Testing
@testable import Vein

/// The JSON / JSON5 parser and the JSON writer.
@Suite struct JSONParserTests {
    private func parse(_ text: String, json5: Bool = false) throws -> JSONValue { try JSONParser.parse(text, json5: json5) }

    /// The error a text gives, as "line:column: message"; nil when it parses.
    private func error(_ text: String, json5: Bool = false) -> String? {
        do {
            _ = try JSONParser.parse(text, json5: json5)
            return nil
        } catch let error as JSONSyntaxError {
            return error.description
        } catch {
            return "unexpected error type: \(error)"
        }
    }

    // MARK: Strict JSON

    @Test func scalars() throws {
        #expect(try parse("null") == .null)
        #expect(try parse("true") == .bool(true))
        #expect(try parse("false") == .bool(false))
        #expect(try parse("0") == .int(0))
        #expect(try parse("-0") == .int(0))
        #expect(try parse("42") == .int(42))
        #expect(try parse("-17") == .int(-17))
        #expect(try parse("9223372036854775807") == .int(.max))
        #expect(try parse("-9223372036854775808") == .int(.min))
        #expect(try parse("9223372036854775808") == .double(9_223_372_036_854_775_808))
        #expect(try parse("1.0") == .double(1.0))
        #expect(try parse("0.5") == .double(0.5))
        #expect(try parse("-0.25") == .double(-0.25))
        #expect(try parse("1e2") == .double(100))
        #expect(try parse("1E+2") == .double(100))
        #expect(try parse("2.5e-3") == .double(0.0025))
        #expect(try parse("1e400") == .double(.infinity))
        #expect(try parse("\"\"") == .string(""))
        #expect(try parse("\"hello\"") == .string("hello"))
        #expect(try parse("  \n\t\r 7 \n") == .int(7))
    }

    @Test func containers() throws {
        #expect(try parse("[]") == .array([]))
        #expect(try parse("{}") == .object(JSONObject()))
        #expect(try parse("[ 1 , [ 2 , [ ] ] , { } ]") == .array([.int(1), .array([.int(2), .array([])]), .object(JSONObject())]))
        let value = try parse(#"{"a": [1, "two", null, true], "b": {"c": 1.5}}"#)
        #expect(value == .object(JSONObject([
            ("a", .array([.int(1), .string("two"), .null, .bool(true)])),
            ("b", .object(JSONObject([("c", .double(1.5))]))),
        ])))
        #expect(value.objectValue?["b"]?.objectValue?["c"]?.numberValue == 1.5)
        #expect(value.objectValue?["missing"] == nil)
    }

    @Test func objectKeysKeepDocumentOrder() throws {
        let object = try #require(try parse(#"{"zeta": 1, "alpha": 2, "mid": 3, "Beta": 4, "_": 5}"#).objectValue)
        #expect(object.keys == ["zeta", "alpha", "mid", "Beta", "_"])
        #expect(object.members.map(\.value) == [.int(1), .int(2), .int(3), .int(4), .int(5)])
        #expect(object.sortedByKey().keys == ["Beta", "_", "alpha", "mid", "zeta"])
        // Order is part of equality.
        #expect(try parse(#"{"a":1,"b":2}"#) != parse(#"{"b":2,"a":1}"#))
    }

    @Test func stringEscapes() throws {
        #expect(try parse(#""\" \\ \/ \b \f \n \r \t""#) == .string("\" \\ / \u{08} \u{0C} \n \r \t"))
        #expect(try parse(#""\u0041\u00e9\u4e2D""#) == .string("Aé中"))
        #expect(try parse(#""\u0000""#) == .string("\u{0}"))
        #expect(try parse("\"raw UTF-8: ü 日本 🌍\"") == .string("raw UTF-8: ü 日本 🌍"))
        #expect(try parse("\"\u{7F}\"") == .string("\u{7F}"))  // DEL is not a control character for JSON
    }

    @Test func surrogatePairs() throws {
        #expect(try parse(#""\uD83D\uDE00""#) == .string("😀"))
        #expect(try parse(#""\ud83c\udf0d and \uD834\uDD1E""#) == .string("🌍 and 𝄞"))
        #expect(try parse(#""\uDBFF\uDFFF""#) == .string("\u{10FFFF}"))
        #expect(error(#""\uD800""#) == #"1:8: unpaired surrogate in \u escape"#)
        #expect(error(#""\uD800x""#) == #"1:8: unpaired surrogate in \u escape"#)
        #expect(error(#""\uDC00""#) == #"1:8: unpaired surrogate in \u escape"#)
        #expect(error(#""\uD800\u0041""#) == #"1:14: unpaired surrogate in \u escape"#)
        #expect(error(#""\uD800\uD800""#) == #"1:14: unpaired surrogate in \u escape"#)
    }

    @Test func invalidEscapes() {
        #expect(error(#""a\qb""#) == #"1:4: invalid escape \'q'"#)
        #expect(error(#""\x41""#) == #"1:3: invalid escape \'x'"#)   // JSON5 only
        #expect(error(#""\'""#) == #"1:3: invalid escape \'''"#)     // JSON5 only
        #expect(error(#""\v""#) == #"1:3: invalid escape \'v'"#)
        #expect(error(#""\0""#) == #"1:3: invalid escape \'0'"#)
        #expect(error(#""\u12G4""#) == "1:6: expected a hexadecimal digit")
        #expect(error(#""\u12""#) == "1:6: expected a hexadecimal digit")
        #expect(error("\"\\") == "1:3: unterminated string")
        #expect(error("\"\\\n\"") == "1:3: invalid escape \\byte 0x0A")
    }

    @Test func controlCharactersMustBeEscaped() {
        #expect(error("\"a\tb\"") == #"1:3: control character in a string (escape it as \u0009)"#)
        #expect(error("\"line\nbreak\"") == #"1:6: control character in a string (escape it as \u000a)"#)
        #expect(error("\"\u{0}\"") == #"1:2: control character in a string (escape it as \u0000)"#)
        #expect(error("\"\u{1F}\"", json5: true) == #"1:2: control character in a string (escape it as \u001f)"#)
    }

    @Test func invalidUTF8InAString() {
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse([0x22, 0xFF, 0x22]) }
        let error = try? #require(throws: JSONSyntaxError.self) { try JSONParser.parse([0x22, 0xC3, 0x28, 0x22]) }
        #expect(error?.message == "invalid UTF-8 in a string")
    }

    @Test func byteOrderMarkIsIgnored() throws {
        #expect(try JSONParser.parse([0xEF, 0xBB, 0xBF] + Array("[1]".utf8)) == .array([.int(1)]))
        #expect(try JSONParser.parse([0xEF, 0xBB, 0xBF] + Array("{a:1}".utf8), json5: true) == .object(JSONObject([("a", .int(1))])))
    }

    /// Every syntax error message, with where it points.
    @Test(arguments: [
        ("", "1:1: unexpected end of input, expected a value"),
        ("   ", "1:4: unexpected end of input, expected a value"),
        ("\n\n  ", "3:3: unexpected end of input, expected a value"),
        ("@", "1:1: unexpected '@', expected a value"),
        ("\u{1}", "1:1: unexpected byte 0x01, expected a value"),
        ("tru", "1:1: unexpected 't', expected a value"),
        ("truex", "1:5: unexpected 'x', expected a value"),
        ("nul", "1:1: unexpected 'n', expected a value"),
        ("falsy", "1:1: unexpected 'f', expected a value"),
        ("[", "1:2: unexpected end of input, expected a value"),
        ("[1", "1:3: expected ',' or ']' after an array element, found end of input"),
        ("[1 2]", "1:4: expected ',' or ']' after an array element, found '2'"),
        ("[1,]", "1:4: unexpected ']', expected a value"),
        ("[,1]", "1:2: unexpected ',', expected a value"),
        ("{", "1:2: unexpected end of input, expected a key"),
        ("{a:1}", "1:2: expected a key in double quotes, found 'a'"),
        ("{1:1}", "1:2: expected a key in double quotes, found '1'"),
        (#"{"a" 1}"#, "1:6: expected ':' after key \"a\""),
        (#"{"a"}"#, "1:5: expected ':' after key \"a\""),
        (#"{"a":}"#, "1:6: unexpected '}', expected a value"),
        (#"{"a":1 "b":2}"#, "1:8: expected ',' or '}' after an object member, found '\"'"),
        (#"{"a":1,}"#, "1:8: expected a key in double quotes, found '}'"),
        (#"{"a":1"#, "1:7: expected ',' or '}' after an object member, found end of input"),
        ("\"abc", "1:5: unterminated string"),
        ("-", "1:2: invalid number"),
        ("-a", "1:2: invalid number"),
        ("01", "1:3: numbers cannot have leading zeros"),
        ("-007", "1:5: numbers cannot have leading zeros"),
        ("1.", "1:3: expected digits after '.'"),
        ("1.e5", "1:3: expected digits after '.'"),
        ("1e", "1:3: expected digits in the exponent"),
        ("1e+", "1:4: expected digits in the exponent"),
        ("1 2", "1:3: unexpected '2' after the document"),
        ("{} x", "1:4: unexpected 'x' after the document"),
        ("[]]", "1:3: unexpected ']' after the document"),
        ("+1", "1:1: unexpected '+', expected a value"),
        (".5", "1:1: unexpected '.', expected a value"),
        ("Infinity", "1:1: unexpected 'I', expected a value"),
        ("NaN", "1:1: unexpected 'N', expected a value"),
        ("-Infinity", "1:2: invalid number"),
        ("0x10", "1:2: unexpected 'x' after the document"),
        ("'single'", "1:1: unexpected ''', expected a value"),
        ("// comment\n1", "1:1: unexpected '/', expected a value"),
        ("/* c */ 1", "1:1: unexpected '/', expected a value"),
        ("[\n  1,\n  2\n  3\n]", "4:3: expected ',' or ']' after an array element, found '3'"),
        ("{\n  \"é\": 1 2}", "2:10: expected ',' or '}' after an object member, found '2'"),
        ("\"日本\" x", "1:6: unexpected 'x' after the document"),
        ("\u{0B}1", "1:1: unexpected byte 0x0B, expected a value"),
    ])
    func strictSyntaxErrors(text: String, expected: String) {
        #expect(error(text) == expected)
    }

    @Test func duplicateKeyIsAnErrorAtTheSecondKey() {
        #expect(error(#"{"a": 1, "a": 2}"#) == #"1:10: duplicate key "a""#)
        #expect(error("{\n  \"name\": 1,\n  \"other\": 2,\n    \"name\": 3\n}") == #"4:5: duplicate key "name""#)
        #expect(error("{a: 1, 'a': 2}", json5: true) == #"1:8: duplicate key "a""#)
        // Keys are compared exactly: case differs, so no duplicate.
        #expect(error(#"{"a": 1, "A": 2}"#) == nil)
        // The same key in different objects is fine.
        #expect(error(#"{"a": {"a": 1}, "b": {"a": 2}}"#) == nil)
    }

    // MARK: Depth

    @Test func nestingUpToTheLimitParses() throws {
        let depth = JSONParser.maxDepth
        let arrays = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect(error(arrays) == nil)
        let objects = String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)
        #expect(error(objects) == nil)
    }

    @Test func nestingBeyondTheLimitIsAnErrorNotACrash() {
        let limit = JSONParser.maxDepth
        #expect(error(String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1))
                == "1:\(limit + 1): nesting deeper than \(limit) levels")
        #expect(error(String(repeating: "[", count: 100_000)) == "1:\(limit + 1): nesting deeper than \(limit) levels")
        #expect(error(String(repeating: "{a:", count: 100_000), json5: true)
                == "1:\(3 * limit + 1): nesting deeper than \(limit) levels")
        #expect(error(String(repeating: "[{\"k\":", count: 50_000))?.hasSuffix("nesting deeper than \(limit) levels") == true)
    }

    // MARK: JSON5

    @Test func json5Comments() throws {
        let text = """
            // leading comment
            { /* block */ "a": 1, // after a member
              /* multi
                 line */ "b": [1, /* inside */ 2], // end
            } // trailing
            /* and at the very end */
            """
        #expect(try parse(text, json5: true) == .object(JSONObject([("a", .int(1)), ("b", .array([.int(1), .int(2)]))])))
        #expect(try parse("1 // no newline at the end", json5: true) == .int(1))
        #expect(try parse("/**/1/**/", json5: true) == .int(1))
        #expect(error("/* never closed", json5: true) == "1:1: unterminated /* comment")
        #expect(error("[1,\n  /* open", json5: true) == "2:3: unterminated /* comment")
        #expect(error("1 /", json5: true) == "1:3: unexpected '/' after the document")
        #expect(error("/ 1", json5: true) == "1:1: unexpected '/', expected a value")
    }

    @Test func json5TrailingCommas() throws {
        #expect(try parse("[1, 2, ]", json5: true) == .array([.int(1), .int(2)]))
        #expect(try parse("{a: 1, b: 2,}", json5: true) == .object(JSONObject([("a", .int(1)), ("b", .int(2))])))
        #expect(try parse("[[],{},]", json5: true) == .array([.array([]), .object(JSONObject())]))
        // Only one, and not alone.
        #expect(error("[1,,]", json5: true) == "1:4: unexpected ',', expected a value")
        #expect(error("[,]", json5: true) == "1:2: unexpected ',', expected a value")
        #expect(error("{,}", json5: true) == "1:2: expected a key in double quotes, found ','")
    }

    @Test func json5UnquotedAndSingleQuotedKeys() throws {
        let object = try #require(try parse("{a: 1, _b: 2, $c: 3, d4_$: 4, 'e f': 5, \"g\": 6, true: 7, null: 8}", json5: true).objectValue)
        #expect(object.keys == ["a", "_b", "$c", "d4_$", "e f", "g", "true", "null"])
        #expect(error("{4a: 1}", json5: true) == "1:2: expected a key in double quotes, found '4'")
        #expect(error("{a-b: 1}", json5: true) == "1:3: expected ':' after key \"a\"")
    }

    @Test func json5SingleQuotedStrings() throws {
        #expect(try parse("'hello'", json5: true) == .string("hello"))
        #expect(try parse(#"'it\'s "quoted"'"#, json5: true) == .string(#"it's "quoted""#))
        #expect(try parse(#""it's \'ok\'""#, json5: true) == .string("it's 'ok'"))
        #expect(try parse("''", json5: true) == .string(""))
        #expect(error("'open", json5: true) == "1:6: unterminated string")
    }

    @Test func json5Escapes() throws {
        #expect(try parse(#"'\v\0\x41\xe9'"#, json5: true) == .string("\u{0B}\u{0}Aé"))
        #expect(try parse("'line \\\ncontinued'", json5: true) == .string("line continued"))
        #expect(try parse("'crlf \\\r\ncontinued'", json5: true) == .string("crlf continued"))
        #expect(error(#"'\xZZ'"#, json5: true) == "1:4: expected a hexadecimal digit")
        #expect(error(#"'\q'"#, json5: true) == #"1:3: invalid escape \'q'"#)
    }

    @Test func json5Numbers() throws {
        func number(_ text: String) throws -> JSONValue { try parse(text, json5: true) }
        #expect(try number("0xFF") == .int(255))
        #expect(try number("0Xab") == .int(171))
        #expect(try number("-0x10") == .int(-16))
        #expect(try number("+0x1") == .int(1))
        #expect(try number("0x7FFFFFFFFFFFFFFF") == .int(.max))
        #expect(error("0x", json5: true) == "1:3: invalid hexadecimal number")
        #expect(error("0x8000000000000000", json5: true) == "1:19: invalid hexadecimal number")
        #expect(try number("Infinity") == .double(.infinity))
        #expect(try number("+Infinity") == .double(.infinity))
        #expect(try number("-Infinity") == .double(-.infinity))
        let nan = try number("NaN")
        #expect(nan.numberValue?.isNaN == true)
        #expect(try number("-NaN").numberValue?.isNaN == true)
        #expect(try number("+1") == .int(1))
        #expect(try number("+1.5") == .double(1.5))
        #expect(try number(".5") == .double(0.5))
        #expect(try number("-.5") == .double(-0.5))
        #expect(try number("+.5e1") == .double(5))
        #expect(try number("5.") == .double(5))
        #expect(try number("5.e1") == .double(50))
        #expect(try number("[.5, 5., -5.]") == .array([.double(0.5), .double(5), .double(-5)]))
        #expect(error(".", json5: true) == "1:2: expected digits after '.'")
        #expect(error("-.", json5: true) == "1:3: expected digits after '.'")
        #expect(error("Inf", json5: true) == "1:1: invalid number")
        #expect(error("+", json5: true) == "1:2: invalid number")
        #expect(error("++1", json5: true) == "1:2: invalid number")
    }

    @Test func json5Whitespace() throws {
        #expect(try parse("\u{0B}\u{0C}\u{A0}[1,\u{A0}2]\u{0C}", json5: true) == .array([.int(1), .int(2)]))
    }

    @Test func strictModeRejectsEveryJSON5Feature() {
        let json5Only = [
            "// c\n1", "/* c */1", "[1,]", "{\"a\":1,}", "{a:1}", "'s'", "{'a':1}", "0x1F", "Infinity", "-Infinity",
            "NaN", "+1", ".5", "5.", "\"\\x41\"", "\"\\v\"", "\"\\0\"", "\"a\\\nb\"", "\u{0B}1", "\u{A0}1",
        ]
        for text in json5Only {
            #expect(error(text) != nil, "strict mode accepted \(text.debugDescription)")
            #expect(error(text, json5: true) == nil, "JSON5 mode rejected \(text.debugDescription)")
        }
    }

    @Test func json5StillRejectsNonsense() {
        #expect(error("{a b}", json5: true) == "1:4: expected ':' after key \"a\"")
        #expect(error("[1 2]", json5: true) == "1:4: expected ',' or ']' after an array element, found '2'")
        #expect(error("undefined", json5: true) == "1:1: unexpected 'u', expected a value")
        #expect(error("{\"a\": 1, \"a\": 2}", json5: true) == "1:10: duplicate key \"a\"")
    }

    @Test func kindNamesAndAccessors() {
        #expect(JSONValue.null.kindName == "null")
        #expect(JSONValue.bool(true).kindName == "a boolean")
        #expect(JSONValue.int(1).kindName == "an integer")
        #expect(JSONValue.double(1).kindName == "a number")
        #expect(JSONValue.string("").kindName == "a string")
        #expect(JSONValue.array([]).kindName == "an array")
        #expect(JSONValue.object(JSONObject()).kindName == "an object")
        #expect(JSONValue.int(3).numberValue == 3 && JSONValue.int(3).intValue == 3)
        #expect(JSONValue.double(3).intValue == nil)
        #expect(JSONValue.string("x").stringValue == "x" && JSONValue.bool(false).boolValue == false)
    }

    @Test func jsonObjectSubscriptReplacesAndRemoves() {
        var object = JSONObject([("a", .int(1)), ("b", .int(2)), ("c", .int(3))])
        object["b"] = .int(20)
        object["d"] = .int(4)
        object["a"] = nil
        #expect(object.keys == ["b", "c", "d"])
        #expect(object["b"] == .int(20))
        #expect(object.count == 3 && !object.isEmpty)
        #expect(JSONObject([("x", .int(1)), ("x", .int(2))]).keys == ["x"])
    }

    // MARK: Writer

    @Test func writerCompactOutput() {
        let value = JSONValue.object(JSONObject([
            ("b", .int(1)), ("a", .array([.bool(true), .bool(false), .null])), ("c", .object(JSONObject())),
            ("d", .array([])), ("e", .double(2.5)), ("f", .string("x")), ("g", .int(-9_223_372_036_854_775_808)),
        ]))
        #expect(JSONWriter.string(value) == #"{"b":1,"a":[true,false,null],"c":{},"d":[],"e":2.5,"f":"x","g":-9223372036854775808}"#)
    }

    @Test func writerCanonicalFormSortsKeysDeeply() throws {
        let value = try parse(#"{"z": {"b": 1, "a": [ {"y": 2, "x": 1} ]}, "a": null, "B": 0, "é": 1, "_": 2}"#)
        #expect(JSONWriter.string(value.canonicalized()) == #"{"B":0,"_":2,"a":null,"z":{"a":[{"x":1,"y":2}],"b":1},"é":1}"#)
        // Canonical text does not depend on how the input was written.
        let other = try parse("{ '_': 2, é: 1, a: null, B: 0, z: { a: [ { x: 1, y: 2, }, ], b: 1 } }".replacingOccurrences(of: "é:", with: "'é':"), json5: true)
        #expect(JSONWriter.string(other.canonicalized()) == JSONWriter.string(value.canonicalized()))
    }

    @Test func writerEscapesWhatJSONRequires() throws {
        let s = "quote\" backslash\\ slash/ nl\n cr\r tab\t bs\u{08} ff\u{0C} nul\u{0} us\u{1F} soh\u{1} del\u{7F} é 🌍 \u{2028}"
        let expected = #""quote\" backslash\\ slash/ nl\n cr\r tab\t bs\b ff\f nul\u0000 us\u001f soh\u0001 del"#
            + "\u{7F} é 🌍 \u{2028}\""
        #expect(JSONWriter.string(.string(s)) == expected)
        for scalar in 0..<0x20 {
            let text = String(Unicode.Scalar(UInt8(scalar)))
            let written = JSONWriter.string(.string(text))
            #expect(written.unicodeScalars.allSatisfy { $0.value >= 0x20 }, "U+\(scalar) written raw")
            #expect(try parse(written) == .string(text))
        }
    }

    @Test func writerDoublesInShortestForm() {
        #expect(JSONWriter.formatDouble(0.1) == "0.1")
        #expect(JSONWriter.formatDouble(1.0) == "1.0")
        #expect(JSONWriter.formatDouble(-2.5) == "-2.5")
        #expect(JSONWriter.formatDouble(0.1 + 0.2) == "0.30000000000000004")
        #expect(JSONWriter.formatDouble(1e300) == "1e+300")
        #expect(JSONWriter.formatDouble(1e-7) == "1e-07")
        #expect(JSONWriter.formatDouble(100_000_000) == "100000000.0")
        #expect(JSONWriter.formatDouble(Double.greatestFiniteMagnitude) == "1.7976931348623157e+308")
        #expect(JSONWriter.formatDouble(Double.leastNonzeroMagnitude) == "5e-324")
        #expect(JSONWriter.formatDouble(.infinity) == "null")
        #expect(JSONWriter.formatDouble(-.infinity) == "null")
        #expect(JSONWriter.formatDouble(.nan) == "null")
        #expect(JSONWriter.string(.double(1.5)) == "1.5")
    }

    @Test func writtenDoublesReadBackExactly() throws {
        var rng = SplitMix64(seed: 2026)
        for _ in 0..<2_000 {
            let d = Double(bitPattern: rng.next())
            guard d.isFinite else { continue }
            let text = JSONWriter.formatDouble(d)
            let back = try parse(text)
            #expect(back.numberValue == d, "\(d) written as \(text) read back as \(back)")
        }
    }

    @Test func writerPrettyPrinting() {
        let value = JSONValue.object(JSONObject([
            ("a", .int(1)), ("b", .array([.bool(true), .null, .object(JSONObject([("c", .string("d"))]))])),
            ("e", .object(JSONObject())), ("f", .array([])),
        ]))
        #expect(JSONWriter.string(value, pretty: true) == """
            {
              "a": 1,
              "b": [
                true,
                null,
                {
                  "c": "d"
                }
              ],
              "e": {},
              "f": []
            }
            """)
        #expect(JSONWriter.string(.array([.int(1)]), pretty: true) == "[\n  1\n]")
        #expect(JSONWriter.string(.int(1), pretty: true) == "1")
    }

    @Test func writeThenParseIsIdentity() throws {
        let value = try parse("""
            {"s": "a\\"b\\u0001\\ud83d\\ude00", "n": [0, -1, 1.25, 1e-9, 123456789012345678], "o": {"k": {}}, "t": true, "z": null}
            """)
        #expect(try parse(JSONWriter.string(value)) == value)
        #expect(try parse(JSONWriter.string(value, pretty: true)) == value)
        #expect(JSONWriter.string(try parse(JSONWriter.string(value))) == JSONWriter.string(value))
    }

    // MARK: Fuzz

    @Test func randomMutationsOfAManifestNeverCrashOrHang() throws {
        let sample = Array(try Fixtures.blogText().utf8)
        let interesting = Array("{}[]:,\"'\\/*\n\t 0123456789.+-eExXIN?abcnulltruefalse\u{0}".utf8) + [0xC3, 0xA9, 0xF0, 0x9F, 0xFF, 0x80]
        var rng = SplitMix64(seed: 0xF00D)
        var parsed = 0, rejected = 0
        for _ in 0..<2_000 {
            var bytes = sample
            let mutations = 1 + Int(rng.next() % 4)
            for _ in 0..<mutations where !bytes.isEmpty {
                let at = Int(rng.next() % UInt64(bytes.count))
                switch rng.next() % 6 {
                case 0: bytes[at] ^= UInt8(1 << (rng.next() % 8))                        // bit flip
                case 1: bytes[at] = interesting[Int(rng.next() % UInt64(interesting.count))]  // byte swap
                case 2: bytes.removeSubrange(at...)                                       // truncation
                case 3: bytes.insert(interesting[Int(rng.next() % UInt64(interesting.count))], at: at)  // insertion
                case 4: bytes.remove(at: at)                                              // deletion
                default:                                                                  // duplicate a slice
                    let end = min(bytes.count, at + Int(rng.next() % 40))
                    bytes.insert(contentsOf: bytes[at..<end], at: at)
                }
            }
            // The raw bytes through the JSON parser, both modes…
            _ = try? JSONParser.parse(bytes, json5: true)
            _ = try? JSONParser.parse(bytes, json5: false)
            // …and the text through the whole manifest validation.
            do {
                let manifest = try ManifestParser.parse(String(decoding: bytes, as: UTF8.self), file: "fuzz.json5")
                // Whatever validates has a canonical form that validates again to the same manifest.
                let again = try ManifestParser.parse(manifest.canonicalText, file: "canonical")
                #expect(again == manifest)
                #expect(again.canonicalText == manifest.canonicalText)
                parsed += 1
            } catch {
                #expect(!error.lines.isEmpty)
                rejected += 1
            }
        }
        #expect(parsed + rejected == 2_000)
        #expect(rejected > 0)
        #expect(parsed > 0)
    }
}

/// `JSONStreamReader.readLine`, the JSON Lines reader of `vein import`: lines split at every refill
/// boundary, empty lines, and a last line without its newline.
@Suite struct JSONStreamReaderLineTests {
    func lines(_ text: String, chunkSize: Int) throws -> [String] {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(fds[1], $0.baseAddress, bytes.count) }
        close(fds[1])
        defer { close(fds[0]) }
        let reader = JSONStreamReader(descriptor: fds[0], chunkSize: chunkSize)
        var out: [String] = []
        while let line = try reader.readLine() { out.append(String(decoding: line, as: UTF8.self)) }
        return out
    }

    @Test func linesAcrossEveryRefillBoundary() throws {
        let text = "{\"a\":1}\n\n{\"b\":\"é\"}\r\n  \nlast"
        for chunkSize in 1...20 {
            #expect(try lines(text, chunkSize: chunkSize) == ["{\"a\":1}", "", "{\"b\":\"é\"}\r", "  ", "last"], "chunk \(chunkSize)")
        }
        #expect(try lines("one\n", chunkSize: 3) == ["one"])
        #expect(try lines("", chunkSize: 3) == [])
    }
}
