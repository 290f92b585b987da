/// A schema as the Swift an app declares it with (`vein schema STORE --swift`, docs/app-guide.md): an
/// `enum V1_0_0: VersionedSchema` holding one `@Model final class` per model, whose manifest
/// (`V1_0_0.manifest(appID:)`) is this schema's canonical manifest, byte for byte.
///
/// Manifest names are ASCII identifiers already (`Identifier`); Swift keywords among them are written in
/// backticks. A model named like a type the declarations use (`Date`, `Data`, `Model`…) gets those
/// types spelled with their module (`Foundation.Date`). What Swift cannot declare is refused with
/// `SwiftDeclarationError`, naming the place in the manifest.
extension SchemaManifest {
    public func swiftDeclarations() throws(SwiftDeclarationError) -> String {
        try SwiftDeclarationWriter(self).text()
    }
}

/// Why a schema has no Swift declaration.
public struct SwiftDeclarationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The place in the manifest (`models.Post.fields.createdAt`).
    public let path: String
    public let problem: String

    public var description: String { "\(path): \(problem)" }
}

private struct SwiftDeclarationWriter {
    let manifest: SchemaManifest
    let schemaName: String
    let modelNames: Set<String>

    /// Words Swift reserves: as a name they need backticks.
    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows",
        "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue", "default",
        "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch",
        "where", "while", "as", "await", "is", "super", "throws", "try", "Any", "Self", "_",
    ]
    /// Model names that would hide what the declarations (and the code @Model generates) must reach:
    /// backticks or a module prefix cannot help there.
    static let unusableModelNames: Set<String> = [
        "Type", "Protocol", "Self", "Any", "Swift", "Foundation", "VeinCore", "String", "Sendable", "PartialKeyPath",
    ]
    /// Member names whose key path (`\Post.Type`) Swift reads as a metatype: @Model cannot name them.
    static let unusableMemberNames: Set<String> = ["Type", "Protocol"]
    /// Names the declarations use, with the module that qualifies them when a model takes the name: the
    /// field types' Swift names (from their facts) and VeinCore's names the declarations write.
    static let modules: [String: String] = Dictionary(uniqueKeysWithValues: FieldType.allCases.compactMap { type in
        type.facts.swiftName.flatMap { name in type.facts.swiftModule.map { (name, $0) } }
    }).merging([
        "VersionedSchema": "VeinCore", "PersistentModel": "VeinCore", "ModelVersion": "VeinCore",
        "RawRepresentablePersistable": "VeinCore", "Model": "VeinCore", "Relationship": "VeinCore",
        "LazyField": "VeinCore", "Unique": "VeinCore", "Attribute": "VeinCore",
    ]) { field, _ in field }

    init(_ manifest: SchemaManifest) {
        self.manifest = manifest
        let version = manifest.version
        schemaName = "V\(version.major)_\(version.minor)_\(version.patch)"
        modelNames = Set(manifest.models.map(\.name))
    }

    func text() throws(SwiftDeclarationError) -> String {
        for model in manifest.models {
            if Self.unusableModelNames.contains(model.name) || model.name == schemaName {
                throw SwiftDeclarationError(path: "models.\(model.name)",
                                            problem: "a model named \(model.name) cannot be declared in Swift "
                                                + "(it would hide \(model.name == schemaName ? "the schema's enum" : "the Swift name \(model.name)"))")
            }
        }
        var lines = [
            "// The schema \(manifest.version) of \(manifest.app) as Swift declarations.",
            "import Foundation",
            "import VeinCore",
            "",
            "enum \(schemaName): \(spell("VersionedSchema")) {",
            "    static let version = \(spell("ModelVersion"))(\(manifest.version.major), \(manifest.version.minor), \(manifest.version.patch))",
            "    static let models: [any \(spell("PersistentModel")).Type] = ["
                + manifest.models.map { "\(Self.name($0.name)).self" }.joined(separator: ", ") + "]",
        ]
        for model in manifest.models {
            lines.append("")
            lines += try declaration(of: model).map { $0.isEmpty ? "" : "    " + $0 }
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// A name as Swift code writes it: keywords in backticks.
    static func name(_ name: String) -> String { keywords.contains(name) ? "`\(name)`" : name }

    /// A model as a relationship's type. @Model reads a relationship to `Date`, `[Data]`… as a mistake
    /// (a field type), so a model named like one is named through the schema's enum.
    /// Inside a class, a member hides a type of its name from expressions (`Tag.self`, `\Tag.post`), so
    /// a model named like a member of the class is named through the schema's enum too.
    func modelType(_ model: String, members: Set<String>) -> String {
        ["Int", "Double", "Bool", "Date", "Data", "UUID"].contains(model) || members.contains(model)
            ? "\(schemaName).\(model)" : Self.name(model)
    }

    /// A type or attribute the declarations use, with its module when a model takes its name.
    func spell(_ name: String, members: Set<String> = []) -> String {
        modelNames.contains(name) || members.contains(name) ? "\(Self.modules[name] ?? "Swift").\(name)" : name
    }

    private func declaration(of model: ModelSchema) throws(SwiftDeclarationError) -> [String] {
        let className = Self.name(model.name)
        let members = Set(model.columnNames)
        for (kind, name) in model.fields.map({ ("fields", $0.name) }) + model.relationships.map({ ("relationships", $0.name) })
            where name == model.name || ["Swift", "Foundation", "VeinCore"].contains(name) || Self.unusableMemberNames.contains(name) {
            let reason = Self.unusableMemberNames.contains(name)
                ? "Swift reads \(model.name).\(name) as the metatype, even in backticks, so its key path cannot be written"
                : "inside the class it would hide " + (name == model.name ? "the class's own name" : "the module \(name)")
            throw SwiftDeclarationError(path: "models.\(model.name).\(kind).\(name)",
                                        problem: "a member named \(name) cannot be declared in Swift (\(reason))")
        }
        let renamed = model.renamedFrom.map { "(originalName: \(Self.literal($0)))" } ?? ""
        var lines = ["@\(spell("Model", members: members))\(renamed)", "final class \(className) {"]
        var body: [String] = []
        // A freestanding macro cannot be written with its module (`#VeinCore.Index` is not Swift), and
        // needs none: macro names do not meet type or member names, so a model named Index leaves it alone.
        for (macro, lists) in [("Index", model.indexes), ("Unique", model.uniquenessConstraints)] where !lists.isEmpty {
            let written = lists.map { "[" + $0.map { "\\.\(Self.name($0))" }.joined(separator: ", ") + "]" }
            body.append("#\(macro)<\(className)>(\(written.joined(separator: ", ")))")
        }
        var enums: [[String]] = []
        var takenTypeNames = modelNames.union(Self.modules.keys).union(Self.unusableModelNames).union([schemaName, "String"])
            .union(members)
        var parameters: [String] = [], assignments: [String] = []
        for field in model.fields {
            let path = "models.\(model.name).fields.\(field.name)"
            var type: String
            if let swiftName = field.type.facts.swiftName {
                type = spell(swiftName, members: members)
            } else {
                type = Self.typeName(for: field.name, avoiding: takenTypeNames)
                takenTypeNames.insert(type)
                enums.append(enumDeclaration(type, values: field.enumValues, members: members))
            }
            let enumType = type
            if field.isOptional { type += "?" }
            var attribute: [String] = field.preservesValueOnDeletion ? [".preserveValueOnDeletion"] : []
            if let renamed = field.renamedFrom { attribute.append("originalName: \(Self.literal(renamed))") }
            if !attribute.isEmpty { body.append("@\(spell("Attribute", members: members))(\(attribute.joined(separator: ", ")))") }
            if field.isUnique { body.append("@\(spell("Unique", members: members))") }
            if field.isLazy { body.append("@\(spell("LazyField", members: members))") }
            var initial = ""
            if let value = field.defaultValue {
                initial = " = " + (try defaultExpression(value, field: field, enumType: enumType, members: members, path: path))
            }
            let name = Self.name(field.name)
            body.append("var \(name): \(type)\(initial)")
            parameters.append("\(name): \(type)" + (initial.isEmpty && field.isOptional ? " = nil" : initial))
            assignments.append("self.\(name) = \(name)")
        }
        for relationship in model.relationships {
            if relationship.target == model.name && relationship.inverse == relationship.name {
                throw SwiftDeclarationError(path: "models.\(model.name).relationships.\(relationship.name)",
                                            problem: "a relationship that is its own inverse cannot be declared in Swift yet "
                                                + "(@Relationship(inverse:) naming its own property is a circular reference to the compiler)")
            }
            var arguments: [String] = []
            if let inverse = relationship.inverse, namesInverse(model.name, relationship) {
                arguments.append("inverse: \\\(modelType(relationship.target, members: members)).\(Self.name(inverse))")
            }
            if relationship.deleteRule != .nullify { arguments.append("deleteRule: .\(relationship.deleteRule.rawValue)") }
            if let renamed = relationship.renamedFrom { body.append("@\(spell("Attribute", members: members))(originalName: \(Self.literal(renamed)))") }
            body.append("@\(spell("Relationship", members: members))" + (arguments.isEmpty ? "" : "(" + arguments.joined(separator: ", ") + ")"))
            let target = modelType(relationship.target, members: members)
            // A to-many starts empty: the initializer below does not assign it, and @Model requires every
            // property without an initial value or an optional type to be assigned.
            body.append("var \(Self.name(relationship.name)): " + (relationship.isToMany ? "[\(target)] = []" : "\(target)?"))
        }
        body.append("")
        body.append("init(\(parameters.joined(separator: ", "))) {" + (assignments.isEmpty ? "}" : ""))
        if !assignments.isEmpty {
            body += assignments.map { "    " + $0 }
            body.append("}")
        }
        for declaration in enums {
            body.append("")
            body += declaration
        }
        lines += body.map { $0.isEmpty ? "" : "    " + $0 }
        lines.append("}")
        return lines
    }

    /// Of the two sides of an inverse pair, the one first in the manifest names the other in Swift
    /// (`VersionedSchema.manifest` names the second side from it).
    private func namesInverse(_ modelName: String, _ relationship: RelationshipSchema) -> Bool {
        guard let inverse = relationship.inverse else { return false }
        let order = manifest.models.flatMap { model in model.relationships.map { (model.name, $0.name) } }
        let this = order.firstIndex { $0 == (modelName, relationship.name) } ?? 0
        let other = order.firstIndex { $0 == (relationship.target, inverse) } ?? this
        return this <= other
    }

    /// The nested enum type of an enum field: `fileType` → `FileType`, made unique.
    static func typeName(for field: String, avoiding taken: Set<String>) -> String {
        var name = field.prefix(1).uppercased() + field.dropFirst()
        while taken.contains(name) || keywords.contains(name) { name += "Value" }
        return name
    }

    private func enumDeclaration(_ type: String, values: [JSONValue], members: Set<String>) -> [String] {
        let isInt = values.first?.intValue != nil
        let cases = Self.enumCases(values).map { "    case \(Self.name($0.name))" + ($0.rawValue.map { " = \($0)" } ?? "") }
        return ["enum \(type): \(isInt ? spell("Int", members: members) : spell("String", members: members)), "
                + "\(spell("RawRepresentablePersistable", members: members)) {"] + cases + ["}"]
    }

    /// Each enum value's case name, and its raw value's literal when the name does not say it.
    static func enumCases(_ values: [JSONValue]) -> [(name: String, rawValue: String?)] {
        var used: Set<String> = []
        return values.map { value in
            var name: String
            let literal: String
            if let i = value.intValue {
                name = "value" + (i < 0 ? "Minus\(i.magnitude)" : "\(i)")
                literal = "\(i)"
            } else {
                let text = value.stringValue ?? ""
                name = identifier(from: text)
                literal = Self.literal(text)
            }
            while used.contains(name) || unusableCaseNames.contains(name) { name += "_" }
            used.insert(name)
            return (name, value.intValue != nil || name != value.stringValue ? literal : nil)
        }
    }

    /// Case names that clash with what an enum has already.
    static let unusableCaseNames: Set<String> = ["self", "Self", "Type", "Protocol", "init", "rawValue", "allCases", "_"]

    /// An identifier for a string enum value: the value itself when it is one, else its letters and
    /// digits in camel case.
    static func identifier(from text: String) -> String {
        let isIdentifier = text.unicodeScalars.first.map { $0.isASCII && ($0.properties.isAlphabetic || $0 == "_") } ?? false
            && text.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }
        if isIdentifier { return text }
        let words = text.unicodeScalars.split { !($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) }
            .map { String(String.UnicodeScalarView($0)) }
        var name = words.enumerated().map { $0.offset == 0 ? $0.element : $0.element.prefix(1).uppercased() + $0.element.dropFirst() }
            .joined()
        if name.isEmpty || ("0"..."9").contains(name.first!) { name = "value" + name }
        return name
    }

    /// The Swift expression of a manifest default, for the types whose Swift default the manifest keeps.
    private func defaultExpression(_ value: JSONValue, field: FieldSchema, enumType: String, members: Set<String>,
                                   path: String) throws(SwiftDeclarationError) -> String {
        switch (field.type, value) {
        case (.string, .string(let s)): return Self.literal(s)
        case (.int, .int(let i)): return "\(i)"
        case (.double, .double(let d)) where d.isSubnormal: return "\(spell("Double", members: members))(bitPattern: 0x\(String(d.bitPattern, radix: 16)))"
        case (.double, .double(let d)): return "\(d)"
        case (.double, .int(let i)): return "\(i).0"
        case (.bool, .bool(let b)): return "\(b)"
        case (.uuid, .string(let s)): return "\(spell("UUID", members: members))(uuidString: \(Self.literal(s)))!"
        case (.enum, _):
            // With its type: on an optional, `.none` and `.some` would be Optional's own.
            return "\(enumType).\(Self.name(enumCaseName(of: value, in: field.enumValues)))"
        default:
            throw SwiftDeclarationError(path: path + ".default",
                                        problem: "a \(field.type.rawValue) default cannot be declared in Swift yet "
                                            + "(@Model writes string, int, double, bool, uuid and enum defaults to the manifest)")
        }
    }

    /// The case name `enumDeclaration` gives `value`.
    private func enumCaseName(of value: JSONValue, in values: [JSONValue]) -> String {
        Self.enumCases(values)[values.firstIndex(of: value) ?? 0].name
    }

    /// A Swift string literal of `text`.
    static func literal(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value)
                    || scalar.properties.generalCategory == .format || scalar.properties.generalCategory == .lineSeparator
                    || scalar.properties.generalCategory == .paragraphSeparator {
                    out += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
