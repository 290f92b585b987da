import Testing
@testable import Vein

@Suite struct ManifestLimitsTests {
    @Test func dateDefaultsMustStayWithinFourDigitYears() {
        let text = "{ vein: 1, app: 'a', version: '1.0.0', models: { M: { fields: { d: { type: 'date', default: '9999-12-31T23:59:59-01:00' } } } } }"
        #expect(throws: ManifestError.self) { try ManifestParser.parse(text, file: "m.json5") }
        #expect(ISODate.parse("9999-12-31T23:59:59Z") != nil)
        #expect(ISODate.parse("0001-01-01T00:00:00+00:01") == nil)
    }

    @Test func tooManyColumnsIsAValidationError() throws {
        let fields = (0..<2000).map { "f\($0): 'int'" }.joined(separator: ", ")
        let text = "{ vein: 1, app: 'a', version: '1.0.0', models: { Wide: { fields: { \(fields) } } } }"
        let error = try #require(throws: ManifestError.self) { try ManifestParser.parse(text, file: "m.json5") }
        #expect(error.lines == ["m.json5: models.Wide: Wide has 2000 fields and relationships; SQLite allows at most 1999 (plus the id)"])
    }
}
