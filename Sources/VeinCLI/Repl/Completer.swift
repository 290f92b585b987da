import Foundation
import Vein

/// Tab completion from the schema (docs/repl.md): statement words, model names, the fields and relationships
/// of the model in scope, enum cases after `field == .`, relationships after `Model(#id("…")).`,
/// dot-commands, and ids of the last result after `#id("`. Works on the text before the cursor (every
/// line of a statement that continues), and completes its last word: the letters, digits and `_` at its end.
struct Completer {
    let manifest: SchemaManifest
    let recentIDs: [String]

    struct Completion: Equatable {
        var candidates: [String]
        /// Typed after a single match.
        var appending: Character = " "
    }

    static let statementWords = ["count", "get", "insert", "update", "delete", "changes", "save", "rollback"]
    static let clauseWords = ["where", "sort", "limit", "offset"]
    static let literalWords = ["true", "false", "nil"]
    static let stringMethods = ["contains", "hasPrefix", "hasSuffix", "starts", "lowercased", "uppercased",
                                "localizedStandardContains", "count", "isEmpty"]
    static let toManyMembers = ["count", "isEmpty", "contains"]

    static func isWordCharacter(_ c: Character) -> Bool { c.isLetter || c.isNumber || c == "_" }

    func complete(_ text: String) -> Completion {
        let word = String(text.reversed().prefix(while: Self.isWordCharacter).reversed())
        let before = String(text.dropLast(word.count))
        func matching(_ names: [String], appending: Character = " ") -> Completion {
            Completion(candidates: names.filter { $0.hasPrefix(word) }, appending: appending)
        }
        let start = before.drop { $0.isWhitespace }
        if start.hasPrefix(".") { return dotCommand(String(start), word: word, matching: matching) }
        if before.hasSuffix("#id(\"") { return matching(recentIDs, appending: "\"") }
        let (code, insideString) = Self.withoutStrings(before)
        if insideString { return matching([]) }
        let scope = modelInScope(code)
        if code.hasSuffix(".") { return member(String(code.dropLast()), scope: scope, matching: matching) }

        let previous = code.trimmingTrailingWhitespace
        let words = Self.words(in: code)
        guard let first = words.first else { return matching(Self.statementWords + modelNames) }
        if ["count", "delete", "update", "insert"].contains(first), words.count == 1 { return matching(modelNames) }
        guard let model = scope else { return matching([]) }
        let columns = model.fields.map(\.name) + model.relationships.map(\.name)
        if first == "insert" {
            if previous.hasSuffix("(") || previous.hasSuffix(",") { return matching(columns, appending: ":") }
            return matching(Self.literalWords)
        }
        // Right after the model (or its traversal): the clauses.
        let afterModel = words.last == model.name || (scopeRelationshipWord(code) != nil && scopeRelationshipWord(code) == words.last)
        if afterModel, code.last?.isWhitespace == true { return matching(Self.clauseWords + (first == "update" ? ["set"] : [])) }
        if let sortIndex = words.lastIndex(of: "sort"), !words[sortIndex...].contains(where: { ["limit", "offset"].contains($0) }) {
            let last = words.last!
            if last == "sort" || previous.hasSuffix(",") { return matching(columns) }
            return matching(["asc", "desc", "limit", "offset"])
        }
        return matching(columns + Self.clauseWords + Self.literalWords + (first == "update" ? ["set"] : []))
    }

    var modelNames: [String] { manifest.models.map(\.name) }

    private func dotCommand(_ text: String, word: String, matching: ([String], Character) -> Completion) -> Completion {
        let command = String(text.prefix { !$0.isWhitespace })
        if command == text, text == "." { return matching(DotCommands.names.map { String($0.dropFirst()) }, " ") }
        let rest = String(text.dropFirst(command.count)) + word
        switch command {
        case ".schema": return matching(modelNames, " ")
        case ".mode": return matching(ResultFormatter.Format.allCases.map(\.rawValue), " ")
        case ".timer", ".headers": return matching(["on", "off"], " ")
        case ".explain": return complete(String(rest.drop { $0.isWhitespace }))
        default: return matching([], " ")
        }
    }

    /// After a `.`: an enum case after `field == .` (or `field: .`, `field = .`), the relationships after
    /// `Model(#id("…")).`, the fields of a to-one's target, the members of a string or to-many.
    private func member(_ head: String, scope: ModelSchema?, matching: ([String], Character) -> Completion) -> Completion {
        let trimmed = head.trimmingTrailingWhitespace
        for op in ["==", "!=", ":", "="] where trimmed.hasSuffix(op) {
            let name = Self.lastWord(String(trimmed.dropLast(op.count)).trimmingTrailingWhitespace)
            guard let field = scope?.field(named: name), !field.enumValues.isEmpty else { return matching([], " ") }
            return matching(field.enumValues.compactMap(\.stringValue), " ")
        }
        if let traversed = Self.traversalOwner(trimmed), let owner = manifest.model(named: traversed) {
            return matching(owner.relationships.map(\.name), " ")
        }
        let name = Self.lastWord(trimmed.hasSuffix("?") ? String(trimmed.dropLast()) : trimmed)
        if let relationship = scope?.relationship(named: name) {
            if relationship.isToMany { return matching(Self.toManyMembers, " ") }
            let target = manifest.model(named: relationship.target)
            return matching((target?.fields.map(\.name) ?? []) + (target?.relationships.map(\.name) ?? []), " ")
        }
        if let field = scope?.field(named: name), field.type == .string { return matching(Self.stringMethods, " ") }
        return matching([], " ")
    }

    /// The model whose fields are in scope: the statement's model, or a traversal's target.
    func modelInScope(_ code: String) -> ModelSchema? {
        let words = Self.words(in: code)
        guard var name = words.first else { return nil }
        if ["count", "delete", "update", "insert"].contains(name) {
            guard words.count > 1 else { return nil }
            name = words[1]
        }
        guard let model = manifest.model(named: name) else { return nil }
        if let relationshipName = scopeRelationshipWord(code), let relationship = model.relationship(named: relationshipName) {
            return manifest.model(named: relationship.target)
        }
        return model
    }

    /// `attachments` in `Post(#id("…")).attachments …`.
    private func scopeRelationshipWord(_ code: String) -> String? {
        guard let range = code.range(of: "#id(\"\")).") else { return nil }
        let word = code[range.upperBound...].prefix(while: Self.isWordCharacter)
        return word.isEmpty ? nil : String(word)
    }

    /// `Post` in `… Post(#id("…"))` (strings already emptied).
    private static func traversalOwner(_ code: String) -> String? {
        guard code.hasSuffix("(#id(\"\"))") else { return nil }
        let head = String(code.dropLast("(#id(\"\"))".count))
        let word = lastWord(head)
        return word.isEmpty ? nil : word
    }

    private static func lastWord(_ text: String) -> String {
        String(text.reversed().prefix(while: isWordCharacter).reversed())
    }

    static func words(in code: String) -> [String] {
        code.split { !isWordCharacter($0) }.map(String.init).filter { !($0.first?.isNumber ?? true) }
    }

    /// The text with the contents of string literals removed (`"a b"` → `""`), so words in them are not
    /// taken for names; an unterminated string is kept open (`#id("` stays `#id("`).
    static func withoutStrings(_ text: String) -> (code: String, insideString: Bool) {
        var out = "", inString = false, escaped = false
        for c in text {
            if inString {
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { inString = false; out.append(c) }
                continue
            }
            if c == "\"" { inString = true }
            out.append(c)
        }
        return (out, inString)
    }
}

extension StringProtocol {
    var trimmingTrailingWhitespace: String { String(reversed().drop { $0.isWhitespace }.reversed()) }
}
