import Foundation
import Testing
@testable import Vein

/// Each field type's facts (VeinFieldTypes) are what the layers that used to restate them now read: the
/// codecs' names and column types, the expression language's type names, `vein schema --swift`'s
/// spelling, the manifest's "did you mean" hints and the empty values.
@Suite struct FieldTypeFactsTests {
    @Test func theCodecsNameTheirTypeAsTheFactsDo() {
        for type in FieldType.allCases where type != .enum {
            let codec = type.codec(enumValues: [])
            #expect(codec.typeName == type.rawValue)
            #expect(codec.swiftTypeName == type.facts.swiftName)
            #expect(codec.columnType == type.facts.columnType)
        }
        // An enum's Swift type is the app's own and its column follows its raw values.
        #expect(FieldType.enum.facts.swiftName == nil && FieldType.enum.facts.columnType == nil)
        #expect(FieldType.enum.codec(enumValues: [.string("a")]).columnType == "TEXT")
        #expect(FieldType.enum.codec(enumValues: [.int(1)]).columnType == "INTEGER")
    }

    @Test func theLanguageNamesAFieldByItsSwiftName() {
        for type in FieldType.allCases where type != .enum {
            let field = FieldSchema(name: "f", type: type)
            #expect(ValueType.of(field).description == type.facts.swiftName)
            #expect(ValueType.of(FieldSchema(name: "f", type: type, isOptional: true)).description == type.facts.swiftName! + "?")
        }
        // The one name the codec and the language used to disagree on.
        #expect(ValueType.json.description == "JSONValue")
        #expect(FieldCodec(field: FieldSchema(name: "f", type: .json)).swiftTypeDescription == "JSONValue")
    }

    @Test func aJSONValueOfAnotherKindIsRefusedInTheFactsWords() {
        for type in FieldType.allCases where ![.enum, .json].contains(type) {
            let codec = FieldSchema(name: "f", type: type).codec
            let wrongKind: JSONValue = type == .string || type == .date || type == .data || type == .uuid ? .int(1) : .string("x")
            #expect(throws: ValueMismatch(expectation: "\(type.facts.jsonForm), found \(wrongKind.kindName)")) {
                try codec.value(fromJSON: wrongKind)
            }
        }
    }

    @Test func aliasesPointAtOneTypeAndHideNone() {
        let aliases = FieldType.allCases.flatMap(\.facts.aliases)
        #expect(Set(aliases).count == aliases.count, "an alias names two types")
        #expect(Set(aliases).isDisjoint(with: FieldType.allCases.map(\.rawValue)))
        #expect(FieldType.aliases["boolean"] == .bool && FieldType.aliases["blob"] == .data)
    }

    @Test func everyTypeHasAnEmptyValueItsCodecAccepts() throws {
        for type in FieldType.allCases {
            let values: [JSONValue] = type == .enum ? [.string("first"), .string("second")] : []
            let empties = type.emptyValues(enumValues: values)
            #expect(!empties.isEmpty, "\(type) has no empty value")
            let codec = FieldSchema(name: "f", type: type, enumValues: values).codec
            for empty in empties { #expect(try codec.normalized(empty) == empty, "\(type)'s empty value \(empty) is not in its normal form") }
        }
        #expect(FieldType.enum.emptyValues(enumValues: [.int(3), .int(1)]) == [.int(3)])
    }

    @Test func theDeclarationsSpellEachTypeByItsSwiftName() throws {
        var fields = FieldType.allCases.filter { $0 != .enum }.map { FieldSchema(name: "f\($0.rawValue)", type: $0) }
        fields.append(FieldSchema(name: "status", type: .enum, enumValues: [.string("draft")]))
        let manifest = SchemaManifest(app: "facts", version: SchemaVersion(1, 0, 0),
                                      models: [ModelSchema(name: "Thing", fields: fields, relationships: [])])
        let text = try manifest.swiftDeclarations()
        for type in FieldType.allCases where type != .enum {
            #expect(text.contains("var f\(type.rawValue): \(type.facts.swiftName!)"), "\(text)")
        }
        #expect(text.contains("var status: Status"), "\(text)")
    }
}
