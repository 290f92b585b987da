import Foundation
import Testing
import VeinCore

/// UUID comparisons in `#Predicate` run in SQL: the engine compares a uuid field with the UUID's stored
/// form (uppercase text), which is equal exactly when Foundation's `UUID ==` is (the 16 bytes).
@Suite struct UUIDPredicateTests {
    enum Tokens: VersionedSchema {
        static let version = ModelVersion(1, 0, 0)
        static let models: [any PersistentModel.Type] = [Token.self]
        @Model final class Token {
            var key: UUID
            var other: UUID?
            init(key: UUID, other: UUID?) {
                self.key = key
                self.other = other
            }
        }
    }
    typealias Token = Tokens.Token

    @Test func equalityAndInequalityTranslateAndAgreeWithFoundation() throws {
        let container = try ModelContainer(for: Tokens.self, at: nil, appID: "com.example.tokens")
        // Hex letters, written lowercase: Foundation compares bytes, the store holds uppercase text.
        let keys = ["7b0c9e2a-1111-4222-8333-444455556666", "ABCDEF01-2345-4678-89AB-CDEF01234567",
                    "00000000-0000-0000-0000-000000000000"].map { UUID(uuidString: $0)! }
        for (i, key) in keys.enumerated() { container.context.insert(Token(key: key, other: i == 1 ? nil : keys[2 - i])) }
        try container.context.save()
        let context = container.newContext()
        // One unsaved change: pending objects are tested in memory, the rest in SQL.
        context.insert(Token(key: keys[0], other: keys[1]))
        let all = try context.fetch(FetchDescriptor<Token>())
        for probe in keys + [UUID()] {
            let optionalProbe: UUID? = probe
            let predicates: [(String, Predicate<Token>)] = [
                ("key == probe", #Predicate<Token> { $0.key == probe }),
                ("key != probe", #Predicate<Token> { $0.key != probe }),
                ("probe == key", #Predicate<Token> { probe == $0.key }),
                ("other == probe", #Predicate<Token> { $0.other == optionalProbe }),
                ("other != probe", #Predicate<Token> { $0.other != optionalProbe }),
                ("other == nil || key == probe", #Predicate<Token> { $0.other == nil || $0.key == probe }),
            ]
            for (text, predicate) in predicates {
                #expect(context.translates(predicate), "\(text)")
                let expected = try all.filter { try predicate.evaluate($0) }.compactMap(\.id)
                #expect(try context.fetchIdentifiers(FetchDescriptor(predicate: predicate)) == expected, "\(text) \(probe)")
                #expect(try context.fetchCount(FetchDescriptor(predicate: predicate)) == expected.count, "\(text) \(probe)")
            }
        }
    }
}
