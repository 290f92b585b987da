import Foundation

/// Parses the expression language with Swift's precedence: multiplicative > additive > range formation
/// (`...`, `..<`, non-associative) > `??` (right associative) > comparison (non-associative) > `&&` > `||`
/// > `? :`, prefix `!` and `-`, postfix member access, calls and closures (`.`, `?.`, `{ … }`), and
/// Swift's whitespace rules for `!` and `?`. One parser serves the REPL, `vein query`, `--where` and
/// migration plans.
///
/// Nesting (parentheses, brackets, arguments, prefix operators, `??`, arithmetic chains) is limited to
/// `maxDepth`, so hostile input cannot exhaust the stack of this parser or of the passes that walk the
/// tree after it; `&&` and `||` chains, which may be long, become balanced trees (both operators are
/// associative, short-circuits and errors included, so the meaning is the same).
package struct ExpressionParser {
    public static let maxDepth = 512

    private let tokens: [Token]
    private let source: String
    private var position = 0
    private var depth = 0
    /// The parameters of the closures being parsed, innermost last (`$0` for an anonymous one).
    private var closureParameters: [String] = []
    /// Which of the source's Characters are white space (token columns count Characters), for Swift's rules
    /// around `!` and `?`.
    private let whitespace: WhitespaceColumns

    /// Parses a whole expression; anything left over is an error.
    public static func parse(_ source: String) throws(ExpressionError) -> ParsedExpression {
        var parser = ExpressionParser(tokens: try ExpressionLexer.tokenize(source), source: source)
        let expression = try parser.parseExpression()
        guard case .end = parser.current.kind else {
            throw parser.error("unexpected \(parser.describe(parser.current)) after the expression")
        }
        return expression
    }

    /// Parses an expression at the start of `tokens` and returns how many tokens it used, for statement
    /// parsers that continue after it (`where … sort …`).
    public static func parsePrefix(_ tokens: [Token], source: String) throws(ExpressionError) -> (ParsedExpression, Int) {
        try parsePrefix(tokens, from: 0, source: source, whitespace: WhitespaceColumns(source))
    }

    /// `parsePrefix` of the expression starting at `tokens[start]`, with the source's white space mapped once
    /// by the caller: a statement of many expressions (an insert's values) copies neither its tokens nor
    /// its Characters for each.
    package static func parsePrefix(_ tokens: [Token], from start: Int, source: String,
                                    whitespace: WhitespaceColumns) throws(ExpressionError) -> (ParsedExpression, Int) {
        var parser = ExpressionParser(tokens: tokens, source: source, whitespace: whitespace)
        parser.position = start
        return (try parser.parseExpression(), parser.position - start)
    }

    init(tokens: [Token], source: String, whitespace: WhitespaceColumns? = nil) {
        self.tokens = tokens
        self.source = source
        self.whitespace = whitespace ?? WhitespaceColumns(source)
    }

    /// Whitespace (or the start) right before the current token: Swift reads `!` and `?` there as not
    /// postfix (The Swift Programming Language, "Operators").
    private var spaceBefore: Bool {
        let column = current.column
        return column == 0 || column > whitespace.count || whitespace[column - 1]
    }

    /// Whitespace (or the end) right after the current one-character operator.
    private var spaceAfter: Bool {
        let column = current.column + 1
        return column >= whitespace.count || whitespace[column]
    }

    private var current: Token { tokens[min(position, tokens.count - 1)] }

    private func error(_ message: String, at column: Int? = nil) -> ExpressionError {
        ExpressionError(message, column: column ?? current.column, source: source)
    }

    private func describe(_ token: Token) -> String {
        switch token.kind {
        case .identifier(let n): return "'\(n)'"
        case .dollarZero: return "'$0'"
        case .int(let v): return "'\(v)'"
        case .double(let v): return "'\(v)'"
        case .string: return "string"
        case .hashIdentifier(let n): return "'#\(n)'"
        case .symbol(let s): return "'\(s)'"
        case .end: return "end of input"
        }
    }

    private func isSymbol(_ s: String) -> Bool { current.kind == .symbol(s) }

    private mutating func expect(_ s: String) throws(ExpressionError) {
        guard isSymbol(s) else { throw error("expected '\(s)', found \(describe(current))") }
        position += 1
    }

    mutating func parseExpression() throws(ExpressionError) -> ParsedExpression {
        try enter()
        defer { depth -= 1 }
        return try disjunction()
    }

    /// `condition`, or `condition ? a : b` when a `?` follows: the ternary, below `||` and right
    /// associative (Swift's TernaryPrecedence). Called after `||` returns and out of line, so no frame on
    /// the path every nesting level takes grows (the 512-level limit must fit an 8 MiB stack).
    @inline(never)
    private mutating func conditional(_ condition: ParsedExpression) throws(ExpressionError) -> ParsedExpression {
        guard isSymbol("?") else { return condition }
        let column = current.column
        // Swift reads a `?` right after a value as optional chaining, never as the conditional operator.
        guard spaceBefore else {
            throw error("the conditional operator needs a space before '?', as in Swift (c ? a : b); a '?' right after a value is optional chaining")
        }
        position += 1
        let then = try parseExpression()
        try expect(":")
        return .conditional(condition, then, try parseExpression(), column: column)
    }

    /// One level deeper; an error past `maxDepth`, or sooner when this thread's stack runs short.
    private mutating func enter(_ levels: Int = 1) throws(ExpressionError) {
        depth += levels
        if depth > Self.maxDepth { throw error("the expression is nested too deeply (more than \(Self.maxDepth) levels)") }
        if !StackSpace.hasRoom(StackSpace.parserReserve) {
            throw error("the expression is nested too deeply for this thread's stack (\(depth) level\(depth == 1 ? "" : "s"))")
        }
    }

    /// One level of left-associative binary operators: `operand (op operand)*`.
    /// Each operator of the chain nests the tree one level deeper (`((a + b) + c) + d`).
    private mutating func leftAssociative(_ operators: Set<String>,
                                          _ operand: (inout ExpressionParser) throws(ExpressionError) -> ParsedExpression) throws(ExpressionError) -> ParsedExpression {
        let outer = depth
        defer { depth = outer }
        var left = try operand(&self)
        while case .symbol(let op) = current.kind, operators.contains(op) {
            let column = current.column
            try enter()
            position += 1
            left = .binary(op: op, left: left, right: try operand(&self), column: column)
        }
        return left
    }

    /// `a op b op c …` as a balanced tree, for an associative `op`.
    private mutating func balanced(_ op: String,
                                   _ operand: (inout ExpressionParser) throws(ExpressionError) -> ParsedExpression) throws(ExpressionError) -> ParsedExpression {
        var operands = [try operand(&self)], columns: [Int] = []
        while isSymbol(op) {
            columns.append(current.column)
            position += 1
            operands.append(try operand(&self))
        }
        func join(_ range: Range<Int>) -> ParsedExpression {
            if range.count == 1 { return operands[range.lowerBound] }
            let middle = range.lowerBound + range.count / 2
            return .binary(op: op, left: join(range.lowerBound..<middle), right: join(middle..<range.upperBound), column: columns[middle - 1])
        }
        return join(0..<operands.count)
    }

    private mutating func disjunction() throws(ExpressionError) -> ParsedExpression {
        try conditional(try balanced("||") { (p: inout ExpressionParser) throws(ExpressionError) in try p.conjunction() })
    }

    private mutating func conjunction() throws(ExpressionError) -> ParsedExpression {
        try balanced("&&") { (p: inout ExpressionParser) throws(ExpressionError) in try p.comparison() }
    }

    private static let comparisons: Set<String> = ["==", "!=", "<", "<=", ">", ">="]
    // Made once: a set literal in the call was built, and its strings hashed, at every level of every expression.
    private static let additiveOperators: Set<String> = ["+", "-"]
    private static let multiplicativeOperators: Set<String> = ["*", "/", "%"]

    private mutating func comparison() throws(ExpressionError) -> ParsedExpression {
        let left = try coalesce()
        guard case .symbol(let op) = current.kind, ExpressionParser.comparisons.contains(op) else { return left }
        let column = current.column
        position += 1
        let right = try coalesce()
        if case .symbol(let next) = current.kind, ExpressionParser.comparisons.contains(next) {
            throw error("comparisons cannot be chained, as in Swift; join them with &&")
        }
        return .binary(op: op, left: left, right: right, column: column)
    }

    private mutating func coalesce() throws(ExpressionError) -> ParsedExpression {
        let left = try rangeFormation(after: try additive())
        guard isSymbol("??") else { return left }
        let column = current.column
        try enter()
        defer { depth -= 1 }
        position += 1
        return .binary(op: "??", left: left, right: try coalesce(), column: column)
    }

    private static let rangeOperators: Set<String> = ["...", "..<"]

    /// `a...b`, `a..<b` when a range operator follows `left`: Swift's RangeFormationPrecedence, below `+`
    /// and above `??`, non-associative. Out of line and after `additive` returns, as `conditional` is, so
    /// the path every nesting level takes gets no frame deeper.
    @inline(never)
    private mutating func rangeFormation(after left: ParsedExpression) throws(ExpressionError) -> ParsedExpression {
        guard case .symbol(let op) = current.kind, Self.rangeOperators.contains(op) else { return left }
        let column = current.column
        position += 1
        let right = try additive()
        if case .symbol(let next) = current.kind, Self.rangeOperators.contains(next) {
            throw error("range operators cannot be chained, as in Swift")
        }
        return .binary(op: op, left: left, right: right, column: column)
    }

    private mutating func additive() throws(ExpressionError) -> ParsedExpression {
        try leftAssociative(Self.additiveOperators) { (p: inout ExpressionParser) throws(ExpressionError) in try p.multiplicative() }
    }

    private mutating func multiplicative() throws(ExpressionError) -> ParsedExpression {
        try leftAssociative(Self.multiplicativeOperators) { (p: inout ExpressionParser) throws(ExpressionError) in try p.prefix() }
    }

    private mutating func prefix() throws(ExpressionError) -> ParsedExpression {
        if case .symbol(let op) = current.kind, op == "!" || op == "-" {
            let column = current.column
            try requireNoSpaceAfterPrefixOperator()
            try enter()
            defer { depth -= 1 }
            position += 1
            if op == "-", current.kind == .int(.min) {
                position += 1
                return .literal(.int(.min), column: column)
            }
            let operand = try prefix()
            // A negative literal is one value (so Int64.min can be written).
            if op == "-", case .literal(let literal, _) = operand {
                switch literal {
                case .int(let v): return .literal(.int(0 &- v), column: column)
                case .double(let v): return .literal(.double(-v), column: column)
                default: break
                }
            }
            return .unary(op: op, operand: operand, column: column)
        }
        return try postfix()
    }

    /// Swift's rule for a prefix operator: nothing between it and its operand. Out of line (see `postfix`).
    @inline(never)
    private func requireNoSpaceAfterPrefixOperator() throws(ExpressionError) {
        if spaceAfter { throw error("unary operator cannot be separated from its operand, as in Swift") }
    }

    private mutating func postfix() throws(ExpressionError) -> ParsedExpression {
        var base = try primary()
        let outer = depth
        defer { depth = outer }
        while isSymbol(".") || isSymbol("?.") || isSymbol("!") {
            try enter()
            base = try postfixOperation(base)
        }
        return base
    }

    /// One `.name`, `.name(…)`, `.name { … }`, `?.name` or postfix `!` (after an operand, '!' can only be
    /// Swift's force unwrap). Out of line: `postfix` is on the path every nesting level takes, so its frame
    /// stays small.
    @inline(never)
    private mutating func postfixOperation(_ operand: ParsedExpression) throws(ExpressionError) -> ParsedExpression {
        // Swift's rule: `!` and `?` with whitespace before them are not postfix operators.
        if spaceBefore, isSymbol("!") {
            throw error("'!' after a space is not a postfix operator, as in Swift: to force unwrap, write it right after the value (x!)")
        }
        if spaceBefore, isSymbol("?.") {
            throw error("'?.' after a space is not optional chaining, as in Swift: write it right after the value (post?.title)")
        }
        if isSymbol("!") {
            let column = current.column
            position += 1
            return .forceUnwrap(operand, column: column)
        }
        let base = isSymbol("?.") ? .optionalChain(operand, column: current.column) : operand
        position += 1
        guard case .identifier(let name) = current.kind else {
            throw error("expected a name after '.', found \(describe(current))")
        }
        let column = current.column
        position += 1
        var arguments: [ParsedExpression.Argument]?
        if isSymbol("(") { arguments = try self.arguments() }
        // A trailing closure: `attachments.contains { $0.sizeMiB > 1 }`.
        if isSymbol("{") { arguments = (arguments ?? []) + [ParsedExpression.Argument(label: nil, value: try closure(), isTrailingClosure: true)] }
        if let arguments { return .call(base: base, name: name, arguments: arguments, column: column) }
        return .member(base: base, name: name, column: column)
    }

    /// `#date("…")`, `#id("…")`. Out of line: `primary` is on the path every nesting level takes.
    @inline(never)
    private mutating func hashLiteral(_ name: String) throws(ExpressionError) -> ParsedExpression {
        let column = current.column
        position += 1
        guard name == "date" || name == "id" else { throw error("unknown #\(name) (expected #date or #id)", at: column) }
        try expect("(")
        guard case .string(let text) = current.kind else {
            throw error("#\(name) takes a string: " + (name == "date" ? FieldType.date.facts.literalExample! : "#id(\"01J…\")"))
        }
        let textColumn = current.column
        position += 1
        try expect(")")
        if name == "date" {
            guard let seconds = ISODate.parse(text) else {
                throw error("\"\(text)\" is not an ISO 8601 date such as \"2026-01-31T12:00:00Z\"", at: textColumn)
            }
            return .literal(.date(seconds), column: column)
        }
        guard let id = ULID(text) else { throw error("\"\(text)\" is not an id (26 characters of Crockford base32)", at: textColumn) }
        return .literal(.id(id.description), column: column)
    }

    /// `UUID(uuidString: "…")`, Swift's spelling of a UUID value; an invalid string is an error under it.
    /// Out of line: `primary` is on the path every nesting level takes.
    @inline(never)
    private mutating func uuidLiteral() throws(ExpressionError) -> ParsedExpression {
        let column = current.column
        position += 2  // `UUID` `(`
        guard current.kind == .identifier("uuidString"), tokens[position + 1].kind == .symbol(":"),
              case .string(let text) = tokens[position + 2].kind else {
            throw error("UUID takes a string: \(FieldType.uuid.facts.literalExample!)")
        }
        position += 2
        let textColumn = current.column
        position += 1
        try expect(")")
        guard let uuid = UUID(uuidString: text) else {
            throw error("\"\(text)\" is not a UUID such as \"\(Self.exampleUUID)\"", at: textColumn)
        }
        return .literal(.uuidString(uuid), column: column)
    }

    private static let exampleUUID = "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"

    /// Parentheses end an optional chain (the tree keeps no parentheses, so this is decided here): Swift
    /// refuses `(post?.title).count`, whose base is optional, and takes `(post?.title)?.count`. Out of
    /// line, and called after the parenthesized expression is parsed (see `primary`).
    @inline(never)
    private func requireChainUnwrapped(_ inner: ParsedExpression) throws(ExpressionError) {
        guard isSymbol(".") else { return }
        var next = inner
        while true {
            switch next {
            case .optionalChain:
                throw error("the parentheses end the optional chain, so the value is optional: continue it with ?. or give a default with ??")
            case .member(let base?, _, _), .call(let base, _, _, _): next = base
            default: return
            }
        }
    }

    /// A name inside a closure: its parameter (`$0`, `a`), or a field of the object tested. Out of line, as
    /// `primary` is on the path every nesting level takes.
    @inline(never)
    private mutating func closureName() throws(ExpressionError) -> ParsedExpression {
        let column = current.column
        if case .identifier(let name) = current.kind {
            position += 1
            return closureParameters.contains(name) ? .parameter(name, column: column) : .member(base: nil, name: name, column: column)
        }
        guard closureParameters.last == "$0" else {
            throw error("anonymous closure arguments cannot be used inside a closure that has explicit arguments, as in Swift")
        }
        position += 1
        return .parameter("$0", column: column)
    }

    /// `{ body }` with `$0`, or `{ a in body }`, `{ (a) in body }`.
    private mutating func closure() throws(ExpressionError) -> ParsedExpression {
        let column = current.column
        try expect("{")
        var parameter = "$0"
        if case .identifier(let name) = current.kind, tokens[position + 1].kind == .identifier("in") {
            parameter = name
            position += 2
        } else if isSymbol("("), case .identifier(let name) = tokens[position + 1].kind, tokens[position + 2].kind == .symbol(")"),
                  tokens[position + 3].kind == .identifier("in") {
            parameter = name
            position += 4
        }
        closureParameters.append(parameter)
        defer { closureParameters.removeLast() }
        let body = try parseExpression()
        try expect("}")
        return .closure(parameter: parameter, body: body, column: column)
    }

    private mutating func arguments() throws(ExpressionError) -> [ParsedExpression.Argument] {
        try expect("(")
        var result: [ParsedExpression.Argument] = []
        while !isSymbol(")") {
            var label: String?
            if case .identifier(let name) = current.kind, tokens[position + 1].kind == .symbol(":") {
                label = name
                position += 2
            }
            result.append(ParsedExpression.Argument(label: label, value: isSymbol("{") ? try closure() : try parseExpression()))
            guard isSymbol(",") else { break }
            position += 1
        }
        try expect(")")
        return result
    }

    private mutating func primary() throws(ExpressionError) -> ParsedExpression {
        let token = current
        let column = token.column
        switch token.kind {
        case .int(.min): throw error("integer 9223372036854775808 does not fit in 64 bits")
        case .int(let v): position += 1; return .literal(.int(v), column: column)
        case .double(let v): position += 1; return .literal(.double(v), column: column)
        case .string(let s): position += 1; return .literal(.string(s), column: column)
        case .identifier("true"): position += 1; return .literal(.bool(true), column: column)
        case .identifier("false"): position += 1; return .literal(.bool(false), column: column)
        case .identifier("nil"): position += 1; return .literal(.null, column: column)
        case .identifier("UUID") where tokens[min(position + 1, tokens.count - 1)].kind == .symbol("("):
            return try uuidLiteral()
        case .identifier where !closureParameters.isEmpty, .dollarZero where !closureParameters.isEmpty:
            return try closureName()
        case .identifier(let name):
            position += 1
            return .member(base: nil, name: name, column: column)
        case .dollarZero:
            position += 1
            guard isSymbol(".") else { throw error("expected '.' and a field after $0") }
            position += 1
            guard case .identifier(let name) = current.kind else { throw error("expected a field name after '$0.'") }
            let nameColumn = current.column
            position += 1
            return .member(base: nil, name: name, column: nameColumn)
        case .hashIdentifier(let name):
            return try hashLiteral(name)
        case .symbol("("):
            position += 1
            let inner = try parseExpression()
            try expect(")")
            try requireChainUnwrapped(inner)
            return inner
        case .symbol("["):
            position += 1
            var items: [ParsedExpression] = []
            while !isSymbol("]") {
                items.append(try parseExpression())
                guard isSymbol(",") else { break }
                position += 1
            }
            try expect("]")
            return .array(items, column: column)
        case .symbol("."):
            position += 1
            guard case .identifier(let name) = current.kind else { throw error("expected an enum case after '.'") }
            position += 1
            return .enumCase(name, column: column)
        default:
            throw error("expected a value, found \(describe(token))")
        }
    }
}
