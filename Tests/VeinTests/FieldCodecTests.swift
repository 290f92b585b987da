import Foundation
import Testing
@testable import Vein

/// Each field type's codec (`FieldCodec`): a value bound into a column of the codec's type reads back as
/// itself, its JSON form reads back as itself, the export bytes are that JSON form, and every value is
/// kept in one normal form.
@Suite struct FieldCodecTests {
    /// One field of each type, and of each enum flavour.
    static let fields: [FieldSchema] = FieldType.allCases.flatMap { type -> [FieldSchema] in
        guard type == .enum else { return [FieldSchema(name: "f", type: type, isOptional: true)] }
        return [FieldSchema(name: "f", type: .enum, isOptional: true, enumValues: [.string("draft"), .string("caf\u{e9}")]),
                FieldSchema(name: "f", type: .enum, isOptional: true, enumValues: [.int(1), .int(-7), .int(.max)])]
    }

    /// Values of the field's type in their stored form: the synthetic rows plus edge values.
    static func samples(_ field: FieldSchema) throws -> [Value] {
        let codec = field.codec
        var values = (0..<8).map { codec.syntheticValue(row: $0, unique: false) } + [codec.syntheticValue(row: 9, unique: true)]
        switch field.type {
        case .string: values += [.string("Cafe\u{301} \0 nul"), .string(String(repeating: "x", count: 300)), .string("\u{1F600}")]
        case .int: values += [.int(.max), .int(.min)]
        case .double: values += [.double(-0.0), .double(.greatestFiniteMagnitude), .double(.leastNonzeroMagnitude), .double(0.1)]
        case .date: values += [.date(ISODate.earliest), .date(ISODate.latest), .date(-0.000_001)]
        case .data: values += [.data(Data()), .data(Data(repeating: 0, count: 100))]
        case .json: values += [.string(#"{"b":[1,2.5,null],"a":{"z":true,"y":"\u00e9"}}"#), .string("[]")]
        default: break
        }
        return try values.map { try codec.normalized($0) }
    }

    @Test func everyFieldTypeHasItsOwnCodec() {
        for type in FieldType.allCases {
            let codec = type.codec(enumValues: [.string("a")])
            #expect(codec.typeName == type.rawValue, "FieldType.\(type) has the codec of \(codec.typeName)")
            #expect(["TEXT", "INTEGER", "REAL", "BLOB"].contains(codec.columnType))
        }
        #expect(FieldType.enum.codec(enumValues: [.int(1)]).columnType == "INTEGER")
        #expect(FieldCodec.reference.typeName == "id")
    }

    @Test(arguments: fields) func bindThenReadGivesTheValue(_ field: FieldSchema) throws {
        let codec = field.codec
        let db = try Database(path: ":memory:", mode: .create, key: nil)
        try db.execute("CREATE TABLE t (n INTEGER PRIMARY KEY, v \(codec.columnType))")
        let insert = try db.makeStatement("INSERT INTO t (n, v) VALUES (?, ?)")
        let samples = try Self.samples(field) + [.null]
        for (n, value) in samples.enumerated() {
            try insert.bind(int64: Int64(n), at: 1)
            try codec.bind(value, to: insert, at: 2)
            try insert.step()
            insert.reset()
        }
        let select = try db.makeStatement("SELECT v FROM t ORDER BY n")
        for value in samples {
            #expect(try select.step())
            #expect(try codec.read(select, 0) == value, "\(field.type): \(value)")
            #expect(codec.mismatch(select, 0) == nil)
            // The export bytes are the JSON form's bytes.
            var bytes: [UInt8] = []
            try codec.writeJSON(select, 0, into: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == JSONWriter.string(codec.json(value)), "\(field.type): \(value)")
        }
        #expect(try !select.step())
    }

    @Test(arguments: fields) func jsonOutThenInGivesTheValue(_ field: FieldSchema) throws {
        let codec = field.codec
        for value in try Self.samples(field) + [.null] {
            let json = codec.json(value)
            #expect(try codec.value(fromJSON: json) == value, "\(field.type): \(value) as \(JSONWriter.string(json))")
            // The JSON form is the one docs/interchange.md writes: written and parsed again, it reads as the same value.
            #expect(try codec.value(fromJSON: JSONParser.parse(JSONWriter.string(json))) == value)
        }
    }

    @Test func valuesAreKeptInTheirNormalForms() throws {
        func normalized(_ type: FieldType, _ value: Value, enumValues: [JSONValue] = []) throws -> Value {
            try FieldSchema(name: "f", type: type, enumValues: enumValues).codec.normalized(value)
        }
        #expect(try normalized(.string, .string("Cafe\u{301}")) == .string("Caf\u{e9}"))
        #expect(try normalized(.string, .string("Cafe\u{301}")).stringValue?.unicodeScalars.count == 4)
        #expect(try normalized(.date, .date(1.000_000_4)) == .date(1))
        #expect(try normalized(.date, .double(1.5)) == .date(1.5))
        #expect(try normalized(.json, .string(#"{ "b": 1, "a": [true] }"#)) == .string(#"{"a":[true],"b":1}"#))
        #expect(try normalized(.uuid, .string("e621e1f8-c36c-495a-93fc-0c247a3e6e5f")) == .string("E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        // -0.0 == 0.0 in Swift, so the sign is what shows the normal form.
        guard case .double(let zero) = try normalized(.double, .double(-0.0)) else { Issue.record("not a double"); return }
        #expect(zero.sign == .plus)
        #expect(try normalized(.double, .int(3)) == .double(3))
        // An equivalent spelling of an enum's raw value is stored as the manifest spells it.
        #expect(try normalized(.enum, .string("cafe\u{301}"), enumValues: [.string("caf\u{e9}")]).stringValue?.unicodeScalars.count == 4)

        // The same normal forms from JSON (import, defaults).
        let date = FieldSchema(name: "d", type: .date).codec
        #expect(try date.value(fromJSON: .string("2026-01-31T14:00:00+02:00")) == .date(1_769_860_800))
        #expect(try FieldSchema(name: "s", type: .string).codec.value(fromJSON: .string("Cafe\u{301}")) == .string("Caf\u{e9}"))
        #expect(try FieldSchema(name: "j", type: .json).codec.value(fromJSON: .object(JSONObject([("b", .int(1)), ("a", .null)])))
                == .string(#"{"a":null,"b":1}"#))
    }

    @Test func valuesNotOfTheTypeOrUnstorableAreRefused() {
        func refused(_ type: FieldType, _ value: Value, _ refusal: ValueRefusal) {
            #expect(throws: refusal, "\(type): \(value)") {
                try FieldSchema(name: "f", type: type, enumValues: [.string("a")]).codec.normalized(value)
            }
        }
        refused(.int, .string("1"), .wrongType)
        refused(.int, .null, .wrongType)
        refused(.uuid, .string("not a uuid"), .wrongType)
        refused(.json, .string("{"), .wrongType)
        refused(.enum, .string("b"), .wrongType)
        refused(.double, .double(.infinity), .unstorable(expected: "a finite Double", found: "Infinity"))
        refused(.date, .date(ISODate.latest + 1), .unstorable(expected: "a Date in the years 0001 to 9999",
                                                              found: "\(ISODate.latest + 1) seconds from 1970"))
    }
}
