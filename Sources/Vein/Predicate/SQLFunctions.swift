import CSQLCipher

/// Swift's checked integer arithmetic as SQL functions, installed on each connection that runs compiled conditions
/// (with Double division and `SwiftStringFunctions`, which cannot fail).
///
/// SQLite's integer `+ - *` turn an overflowing result into a REAL and its `/ %` answer NULL for a zero
/// divisor, where Swift traps. The compiler therefore writes integer arithmetic as `vein_add(a, b)` and
/// so on: each computes what the evaluator computes and, where Swift would trap, fails the statement with
/// the evaluator's own `EvaluationError`, which `Statement.step` rethrows as that typed error. They are
/// registered without SQLITE_DETERMINISTIC on purpose: SQLite then never evaluates one ahead of the rows
/// (as it would a constant expression), so an error is raised only for a row the expression is evaluated on.
enum SQLFunctions: SQLFunctionGroup {
    /// Prefixes an error message raised by one of these functions, so it can be told from SQLite's own.
    static let errorMarker = "vein-evaluation: "

    /// The SQL function for an integer operator.
    static let binaryNames = ["+": "vein_add", "-": "vein_sub", "*": "vein_mul", "/": "vein_div", "%": "vein_mod"]
    static let negateName = "vein_neg"
    /// `x!`: the value, or the evaluator's error on NULL.
    static let unwrapName = "vein_unwrap"
    /// `vein_range(lower, upper)`: 1 when `lower...upper` can be formed, else Swift's trap (a NULL bound
    /// is a NaN, which SQLite cannot hold).
    static let rangeName = "vein_range"
    /// Double `/`: IEEE's quotient, an infinity for a zero divisor, where SQLite's `/` answers NULL (a NaN
    /// result is NULL all the same, as SQLite holds no NaN).
    static let divideDoublesName = "vein_fdiv"
    /// `vein_evaluated(a, b, …)`: 1, once its arguments are evaluated (left to right, failing at the first
    /// that fails), to keep Swift's order where SQL would choose its own.
    static let evaluatedName = "vein_evaluated"
    /// Arguments SQLite lets a function take (SQLITE_MAX_FUNCTION_ARG).
    static let maxEvaluatedArguments = 100

    /// A scalar SQL function written in Swift, as `sqlite3_create_function_v2` takes it.
    typealias Function = @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void

    static func register(on handle: OpaquePointer) throws(DatabaseError) {
        let functions: [(String, Int32, Function)] = [
            ("vein_add", 2, { c, _, v in SQLFunctions.binary("+", c, v) }),
            ("vein_sub", 2, { c, _, v in SQLFunctions.binary("-", c, v) }),
            ("vein_mul", 2, { c, _, v in SQLFunctions.binary("*", c, v) }),
            ("vein_div", 2, { c, _, v in SQLFunctions.binary("/", c, v) }),
            ("vein_mod", 2, { c, _, v in SQLFunctions.binary("%", c, v) }),
            ("vein_neg", 1, { c, _, v in SQLFunctions.negate(c, v) }),
            ("vein_unwrap", 1, { c, _, v in SQLFunctions.unwrap(c, v) }),
            ("vein_range", 2, { c, _, v in SQLFunctions.range(c, v) }),
            ("vein_fdiv", 2, { c, _, v in SQLFunctions.divideDoubles(c, v) }),
            ("vein_evaluated", -1, { c, _, _ in sqlite3_result_int64(c, 1) }),
        ]
        try create(functions, flags: SQLITE_UTF8, on: handle)
        try SwiftStringFunctions.register(on: handle)
    }

    /// Registers each `(name, arity, function)` on the connection `handle`, stopping at the first that
    /// SQLite refuses.
    static func create(_ functions: [(String, Int32, Function)], flags: Int32, on handle: OpaquePointer) throws(DatabaseError) {
        for (name, arity, function) in functions {
            let rc = sqlite3_create_function_v2(handle, name, arity, flags, nil, function, nil, nil, nil)
            guard rc == SQLITE_OK else {
                throw DatabaseError(extendedCode: rc, message: "could not register the SQL function \(name): \(String(cString: sqlite3_errstr(rc)))")
            }
        }
    }

    private static func divideDoubles(_ context: OpaquePointer?, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
        guard let values, let a = values[0], let b = values[1], sqlite3_value_type(a) != SQLITE_NULL, sqlite3_value_type(b) != SQLITE_NULL else {
            return sqlite3_result_null(context)
        }
        sqlite3_result_double(context, sqlite3_value_double(a) / sqlite3_value_double(b))
    }

    private static func binary(_ op: String, _ context: OpaquePointer?, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
        guard let values, let a = values[0], let b = values[1] else { return }
        // Operands are never nil (the type checker refuses optional operands); a NULL stays NULL.
        guard sqlite3_value_type(a) != SQLITE_NULL, sqlite3_value_type(b) != SQLITE_NULL else {
            sqlite3_result_null(context)
            return
        }
        do {
            let result = try Evaluator.arithmetic(op, .int(sqlite3_value_int64(a)), .int(sqlite3_value_int64(b)))
            if case .int(let v) = result { sqlite3_result_int64(context, v) } else { sqlite3_result_null(context) }
        } catch {
            fail(context, error)
        }
    }

    private static func negate(_ context: OpaquePointer?, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
        guard let values, let a = values[0], sqlite3_value_type(a) != SQLITE_NULL else {
            sqlite3_result_null(context)
            return
        }
        do {
            if case .int(let v) = try Evaluator.negate(.int(sqlite3_value_int64(a))) { sqlite3_result_int64(context, v) }
        } catch {
            fail(context, error)
        }
    }

    private static func unwrap(_ context: OpaquePointer?, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
        guard let values, let a = values[0], sqlite3_value_type(a) != SQLITE_NULL else {
            fail(context, EvaluationError.unexpectedNil)
            return
        }
        sqlite3_result_value(context, a)
    }

    private static func range(_ context: OpaquePointer?, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
        guard let values, let a = values[0], let b = values[1] else { return }
        func value(_ v: OpaquePointer) -> Value {
            switch sqlite3_value_type(v) {
            case SQLITE_INTEGER: return .int(sqlite3_value_int64(v))
            case SQLITE_FLOAT: return .double(sqlite3_value_double(v))
            case SQLITE_TEXT:
                // By its length: text may hold a NUL.
                let count = Int(sqlite3_value_bytes(v))
                return .string(sqlite3_value_text(v).map { String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self) } ?? "")
            default: return .null
            }
        }
        let low = value(a), high = value(b)
        guard low != .null, high != .null, Evaluator.compare("<=", low, high) else {
            fail(context, EvaluationError.invalidRange)
            return
        }
        sqlite3_result_int64(context, 1)
    }

    private static func fail(_ context: OpaquePointer?, _ error: Error) {
        let message = errorMarker + ((error as? EvaluationError)?.encoded ?? "\(error)")
        sqlite3_result_error(context, message, -1)
    }
}

extension SQLFunctions {
    static func error(fromMessage message: String) -> (any Error)? { EvaluationError(sqliteMessage: message) }
}

extension EvaluationError {
    /// The form carried through SQLite's error message (see `SQLFunctions`).
    var encoded: String {
        switch self {
        case .divisionByZero: return "divisionByZero"
        case .arithmeticOverflow(let what): return "overflow:" + what
        case .nestedTooDeeply: return "nestedTooDeeply"
        case .unexpectedNil: return "unexpectedNil"
        case .invalidRange: return "invalidRange"
        case .membersUnavailable(let name): return "membersUnavailable:" + name
        }
    }

    /// The error a `vein_…` SQL function raised, read back from SQLite's message; nil for any other message.
    init?(sqliteMessage message: String) {
        guard message.hasPrefix(SQLFunctions.errorMarker) else { return nil }
        let body = message.dropFirst(SQLFunctions.errorMarker.count)
        if body == "divisionByZero" { self = .divisionByZero; return }
        if body == "nestedTooDeeply" { self = .nestedTooDeeply; return }
        if body == "unexpectedNil" { self = .unexpectedNil; return }
        if body == "invalidRange" { self = .invalidRange; return }
        guard body.hasPrefix("overflow:") else { return nil }
        self = .arithmeticOverflow(String(body.dropFirst("overflow:".count)))
    }
}
