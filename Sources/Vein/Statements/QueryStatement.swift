/// One statement of the REPL and `vein query` (docs/repl.md), parsed.
package enum QueryStatement: Equatable, Sendable {
    package struct Selection: Equatable, Sendable {
        package var model: String
        /// `Post(#id("…")).attachments`: the owner whose relationship is traversed.
        package var traversal: (ownerModel: String, ownerID: String, relationship: String)?
        package var predicate: ParsedExpression?
        package var sort: [ObjectFetch.SortKey] = []
        package var limit: Int?
        package var offset = 0
        /// Where each sort key is written, for errors found when the statement meets the schema.
        package var sortColumns: [Int] = []

        package static func == (a: Selection, b: Selection) -> Bool {
            a.model == b.model && a.traversal?.ownerID == b.traversal?.ownerID && a.traversal?.relationship == b.traversal?.relationship
                && a.predicate == b.predicate && a.sort == b.sort && a.limit == b.limit && a.offset == b.offset
        }
    }

    case fetch(Selection)
    case count(Selection)
    case get(id: String)
    case insert(model: String, values: [(field: String, value: ParsedExpression, column: Int)])
    case update(Selection, assignments: [(field: String, value: ParsedExpression, column: Int)])
    case delete(Selection)

    package static func == (a: QueryStatement, b: QueryStatement) -> Bool {
        switch (a, b) {
        case (.fetch(let x), .fetch(let y)), (.count(let x), .count(let y)), (.delete(let x), .delete(let y)): return x == y
        case (.get(let x), .get(let y)): return x == y
        case (.insert(let m, let v), .insert(let n, let w)): return m == n && v.map(\.field) == w.map(\.field) && v.map(\.value) == w.map(\.value)
        case (.update(let x, let v), .update(let y, let w)): return x == y && v.map(\.field) == w.map(\.field) && v.map(\.value) == w.map(\.value)
        default: return false
        }
    }

    /// Whether running it changes data.
    package var isWrite: Bool {
        switch self {
        case .insert, .update, .delete: return true
        default: return false
        }
    }
}

/// Parses statements: `Model [where …] [sort key [asc|desc], …] [limit N] [offset N]`, `count Model …`,
/// `get #id("…")`, `Model(#id("…")).relationship …`, `insert Model(field: value, …)`,
/// `update Model [where …] set field = value, …`, `delete Model [where …]`.
package struct QueryParser {
    private var tokens: [Token]
    private let source: String
    private var position = 0
    /// The source's white space, for the expression parser (mapped once, at the first expression).
    private lazy var whitespace = WhitespaceColumns(source)

    package static func parse(_ source: String) throws(ExpressionError) -> QueryStatement {
        let tokens = try ExpressionLexer.tokenize(source, allowAssignment: true)
        var parser = QueryParser(tokens: tokens, source: source)
        do throws(ExpressionError) {
            let statement = try parser.statement()
            guard parser.current.kind == .end else { throw parser.error("unexpected \(parser.describeCurrent()) at the end of the statement") }
            return statement
        } catch {
            throw Incompleteness.classify(error, tokens: tokens)
        }
    }

    private init(tokens: [Token], source: String) {
        self.tokens = tokens
        self.source = source
    }

    private var current: Token { tokens[min(position, tokens.count - 1)] }
    private func error(_ message: String, at column: Int? = nil) -> ExpressionError {
        ExpressionError(message, column: column ?? current.column, source: source)
    }
    private func describeCurrent() -> String {
        switch current.kind {
        case .identifier(let n): return "'\(n)'"
        case .symbol(let s): return "'\(s)'"
        case .end: return "end of input"
        default: return "value"
        }
    }
    private func isWord(_ w: String) -> Bool { current.kind == .identifier(w) }
    private mutating func expectSymbol(_ s: String) throws(ExpressionError) {
        guard current.kind == .symbol(s) else { throw error("expected '\(s)', found \(describeCurrent())") }
        position += 1
    }
    private mutating func name(_ what: String) throws(ExpressionError) -> (String, Int) {
        guard case .identifier(let n) = current.kind else { throw error("expected \(what), found \(describeCurrent())") }
        position += 1
        return (n, tokens[position - 1].column)
    }

    private mutating func expression() throws(ExpressionError) -> ParsedExpression {
        if let literal = plainLiteral() { return literal }
        let (e, used) = try ExpressionParser.parsePrefix(tokens, from: position, source: source, whitespace: whitespace)
        position += used
        if current.kind == .symbol("=") { throw error("use == to compare ('=' assigns, and only in 'set')") }
        return e
    }

    /// A literal followed by `,` or `)` (an insert's value, most often): what the expression parser makes
    /// of it, made without its dozen levels of descent (a fifth of a REPL script's parsing).
    private mutating func plainLiteral() -> ParsedExpression? {
        guard position + 1 < tokens.count, tokens[position + 1].kind == .symbol(",") || tokens[position + 1].kind == .symbol(")") else {
            return nil
        }
        let token = tokens[position]
        let literal: ParsedExpression.Literal
        switch token.kind {
        case .int(let v) where v != .min: literal = .int(v)  // Int64.min is 2^63's marker: the parser refuses it
        case .double(let v): literal = .double(v)
        case .string(let s): literal = .string(s)
        case .identifier("true"): literal = .bool(true)
        case .identifier("false"): literal = .bool(false)
        case .identifier("nil"): literal = .null
        default: return nil
        }
        position += 1
        return .literal(literal, column: token.column)
    }

    private mutating func statement() throws(ExpressionError) -> QueryStatement {
        if isWord("count") { position += 1; return .count(try selection()) }
        if isWord("delete") { position += 1; return .delete(try selection()) }
        if isWord("get") {
            position += 1
            guard case .literal(.id(let id), _) = try expression() else { throw error("get takes an id: get #id(\"01J…\")") }
            return .get(id: id)
        }
        if isWord("insert") {
            position += 1
            let (model, _) = try name("a model name")
            try expectSymbol("(")
            var values: [(String, ParsedExpression, Int)] = []
            while current.kind != .symbol(")") {
                let (field, column) = try name("a field name")
                try expectSymbol(":")
                values.append((field, try expression(), column))
                guard current.kind == .symbol(",") else { break }
                position += 1
            }
            try expectSymbol(")")
            return .insert(model: model, values: values)
        }
        if isWord("update") {
            position += 1
            var selection = try selection(allowSet: true)
            guard isWord("set") else { throw error("expected 'set field = value' in an update") }
            position += 1
            var assignments: [(String, ParsedExpression, Int)] = []
            repeat {
                if current.kind == .symbol(",") { position += 1 }
                let (field, column) = try name("a field name")
                try expectSymbol("=")
                assignments.append((field, try expression(), column))
            } while current.kind == .symbol(",")
            selection.sort = []
            return .update(selection, assignments: assignments)
        }
        return .fetch(try selection())
    }

    private mutating func selection(allowSet: Bool = false) throws(ExpressionError) -> QueryStatement.Selection {
        let (model, _) = try name("a model name or a statement (count, get, insert, update, delete)")
        var selection = QueryStatement.Selection(model: model)
        if current.kind == .symbol("(") {
            position += 1
            guard case .literal(.id(let id), _) = try expression() else { throw error("expected #id(\"…\") of a \(model)") }
            try expectSymbol(")")
            try expectSymbol(".")
            let (relationship, _) = try name("a relationship of \(model)")
            selection.traversal = (model, id, relationship)
        }
        // The clauses, each at most once and in this order (docs/repl.md): `next` is the first that may still come.
        var next = 0, given: Set<String> = []
        while case .identifier(let word) = current.kind, let index = Self.clauses.firstIndex(of: word) {
            if index < next {
                let last = Self.clauses[next - 1]
                throw error(given.contains(word) ? "\(word) is given twice"
                            : "\(word) comes before \(last) (the clauses go \(Self.clauses.joined(separator: ", ")))")
            }
            next = index + 1
            given.insert(word)
            position += 1
            try clause(word, of: &selection)
        }
        if !allowSet, case .identifier(let word) = current.kind {
            let open = Array(Self.clauses[next...])
            let expected = open.isEmpty ? "the end of the statement"
                : open.count == 1 ? open[0] : open.dropLast().joined(separator: ", ") + " or " + open.last!
            throw error("unexpected '\(word)' (expected \(expected))" + Suggestion.hint(for: word, in: open, quote: "'"))
        }
        return selection
    }

    private static let clauses = ["where", "sort", "limit", "offset"]

    /// The body of one clause, after its word.
    private mutating func clause(_ word: String, of selection: inout QueryStatement.Selection) throws(ExpressionError) {
        switch word {
        case "where":
            selection.predicate = try expression()
        case "sort":
            repeat {
                if current.kind == .symbol(",") { position += 1 }
                let (key, column) = try name("a field to sort by")
                var ascending = true
                if isWord("desc") { ascending = false; position += 1 } else if isWord("asc") { position += 1 }
                selection.sort.append(ObjectFetch.SortKey(key, ascending: ascending))
                selection.sortColumns.append(column)
            } while current.kind == .symbol(",")
        default:  // limit, offset
            guard case .int(let n) = current.kind, n >= 0 else { throw error("\(word) takes a non-negative integer") }
            if word == "limit" { selection.limit = Int(n) } else { selection.offset = Int(n) }
            position += 1
        }
    }
}
