import SwiftDiagnostics
import SwiftSyntax

/// An initializer that assigns a persisted `var` before a persisted `let` (`self.id = id` and then
/// `self.createdAt = createdAt`, the order SwiftData code often has). A `let` stays the object's own stored
/// property (LetProperties.swift) while a `var` is an accessor on `self`, and Swift lets an initializer use
/// `self` only once every stored property has its value: the compiler's own error ("'self' used in
/// property access … before all stored properties are initialized") names neither the cause nor the way
/// out. This names both, with a fix-it that moves the `let`s' assignments before the first `var`'s.
enum LetAssignmentOrder {
    static func problems(in model: ClassDeclSyntax, properties: [PropertyInfo]) -> [Diagnostic] {
        let lets = Set(properties.filter(\.isLet).map(\.identifier))
        guard !lets.isEmpty else { return [] }
        let vars = Set(properties.filter { !$0.isLet }.map(\.identifier))
        return model.memberBlock.members.compactMap { member in
            guard let initializer = member.decl.as(InitializerDeclSyntax.self), let body = initializer.body else { return nil }
            let parameters = Set(initializer.signature.parameterClause.parameters.map { ($0.secondName ?? $0.firstName).text })
            let targets = body.statements.map { assignedProperty($0, parameters: parameters) }
            guard let firstVar = targets.firstIndex(where: { $0.map(vars.contains) == true }) else { return nil }
            // Each `let` assigned after the first `var`, moved (in its order) to just before that `var`.
            let moved = targets.indices.filter { $0 > firstVar && targets[$0].map(lets.contains) == true }
            guard let lateLet = moved.first else { return nil }
            var items = Array(body.statements)
            let movedItems = moved.map { items[$0] }
            for index in moved.reversed() { items.remove(at: index) }
            var reordered = items
            reordered.insert(contentsOf: movedItems, at: firstVar)
            let fixIt = FixIt(message: ModelFixIt(message: "assign the 'let' properties first"), changes: [
                .replace(oldNode: Syntax(body.statements), newNode: Syntax(CodeBlockItemListSyntax(reordered))),
            ])
            return Diagnostic(node: body.statements[body.statements.index(body.statements.startIndex, offsetBy: lateLet)],
                              message: ModelDiagnostic.letAssignedAfterVar(letProperty: targets[lateLet]!, varProperty: targets[firstVar]!),
                              fixIts: [fixIt])
        }
    }

    /// The property a statement `self.name = …` (or `name = …`, when no parameter is called `name`) assigns.
    private static func assignedProperty(_ item: CodeBlockItemSyntax, parameters: Set<String>) -> String? {
        guard let sequence = item.item.as(SequenceExprSyntax.self), sequence.elements.count == 3 else { return nil }
        let elements = Array(sequence.elements)
        guard elements[1].is(AssignmentExprSyntax.self) else { return nil }
        if let member = elements[0].as(MemberAccessExprSyntax.self),
           member.base?.as(DeclReferenceExprSyntax.self)?.baseName.tokenKind == .keyword(.self) {
            return member.declName.baseName.text
        }
        if let name = elements[0].as(DeclReferenceExprSyntax.self)?.baseName.text, !parameters.contains(name) { return name }
        return nil
    }
}
