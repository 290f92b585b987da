import Foundation

/// One connection to a PostgreSQL server through libpq, opened at first use (`dlopen`) as libsecret is:
/// only a store synced through PostgreSQL pays for loading it, and a machine without libpq runs every
/// other command. Parameters and results travel in binary, so ciphertext is never escaped or parsed.
///
/// Not shared between threads: each relay of a sync session owns one, used on its session's thread.
final class PostgresConnection {
    /// Why a call failed: the server's or libpq's words, and the SQLSTATE when the server sent one.
    struct Failure: Error {
        let message: String
        let sqlState: String?
        /// The connection itself is gone (server stopped, network lost), as against a refused statement.
        let connectionLost: Bool

        /// 23505: another row holds this key (a segment another process inserted first).
        var isUniqueViolation: Bool { sqlState == "23505" }
        /// Class 53: the server is out of a resource (53100 disk full, 53200 memory, 53300 connections).
        var isOutOfResources: Bool { sqlState?.hasPrefix("53") == true }
    }

    /// A statement's rows, binary columns read as bytes.
    struct Rows {
        fileprivate(set) var values: [[[UInt8]?]] = []
        var count: Int { values.count }
        /// A value's bytes; nil for NULL, and for a row or column the result does not have.
        func bytes(_ row: Int, _ column: Int) -> [UInt8]? {
            guard values.indices.contains(row), values[row].indices.contains(column) else { return nil }
            return values[row][column]
        }
        func text(_ row: Int, _ column: Int) -> String? { bytes(row, column).map { String(decoding: $0, as: UTF8.self) } }
        /// An `int8` column sent in binary (network byte order).
        /// An integer column of any width (smallint, integer, bigint: big-endian, two's complement).
        func int64(_ row: Int, _ column: Int) -> Int64? {
            guard let bytes = bytes(row, column), [2, 4, 8].contains(bytes.count) else { return nil }
            let unsigned = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let shift = UInt64(64 - 8 * bytes.count)
            return Int64(bitPattern: unsigned << shift) >> Int64(shift)
        }
    }

    private let connection: OpaquePointer
    private let lib: LibPQ

    /// Connects with `conninfo` (a `postgres://` URL or `key=value` words, as libpq reads them).
    init(_ conninfo: String) throws(Failure) {
        let lib = try LibPQ.shared()
        guard let connection = lib.connectdb(conninfo) else {
            throw Failure(message: "libpq could not allocate a connection", sqlState: nil, connectionLost: true)
        }
        guard lib.status(connection) == LibPQ.connectionOK else {
            let message = Self.trimmed(lib.errorMessage(connection))
            lib.finish(connection)
            throw Failure(message: message, sqlState: nil, connectionLost: true)
        }
        self.connection = connection
        self.lib = lib
        // Notices ("relation already exists, skipping") would go to stderr; warnings and errors still come back.
        _ = try execute("SET client_min_messages TO warning")
    }

    deinit { lib.finish(connection) }

    /// Runs one statement with `parameters` (bytes, sent in binary; a `text` parameter is its UTF-8),
    /// returning its rows in binary.
    @discardableResult
    func execute(_ sql: String, _ parameters: [[UInt8]] = []) throws(Failure) -> Rows {
        let result: OpaquePointer? = withParameters(parameters) { values, lengths, formats in
            lib.execParams(connection, sql, Int32(parameters.count), nil, values, lengths, formats, 1)
        }
        guard let result else { throw failure(nil) }
        defer { lib.clear(result) }
        let status = lib.resultStatus(result)
        guard status == LibPQ.commandOK || status == LibPQ.tuplesOK else { throw failure(result) }
        var rows = Rows()
        let columns = lib.nfields(result)
        for row in 0..<lib.ntuples(result) {
            rows.values.append((0..<columns).map { column in
                if lib.getisnull(result, row, column) != 0 { return nil }
                let length = Int(lib.getlength(result, row, column))
                guard length > 0, let value = lib.getvalue(result, row, column) else { return [] }
                return value.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
            })
        }
        return rows
    }

    /// Waits up to `seconds` for a notification on a channel this connection listens to; true when one came.
    func waitForNotification(seconds: Double) throws(Failure) -> Bool {
        if try drainNotifications() { return true }
        var descriptor = pollfd(fd: lib.socket(connection), events: Int16(POLLIN), revents: 0)
        guard descriptor.fd >= 0 else { throw failure(nil) }
        let ready = poll(&descriptor, 1, Int32(seconds * 1000))
        guard ready > 0 else { return false }
        guard lib.consumeInput(connection) == 1 else { throw failure(nil) }
        return try drainNotifications()
    }

    private func drainNotifications() throws(Failure) -> Bool {
        var any = false
        while let notification = lib.notifies(connection) {
            any = true
            lib.freemem(UnsafeMutableRawPointer(notification))
        }
        return any
    }

    private func withParameters<T>(_ parameters: [[UInt8]],
                                   _ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> T) -> T {
        let lengths = parameters.map { Int32($0.count) }
        let formats = [Int32](repeating: 1, count: parameters.count)
        // Each parameter's bytes pinned for the call: a copy in memory that lives until the call returns.
        let copies: [UnsafeMutablePointer<CChar>] = parameters.map { bytes in
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: max(bytes.count, 1))
            bytes.withUnsafeBytes { if let base = $0.baseAddress { memcpy(copy, base, bytes.count) } }
            return copy
        }
        defer { copies.forEach { $0.deallocate() } }
        let values: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0) }
        return values.withUnsafeBufferPointer { values in
            lengths.withUnsafeBufferPointer { lengths in
                formats.withUnsafeBufferPointer { formats in body(values.baseAddress, lengths.baseAddress, formats.baseAddress) }
            }
        }
    }

    private func failure(_ result: OpaquePointer?) -> Failure {
        let lost = lib.status(connection) != LibPQ.connectionOK
        guard let result else { return Failure(message: Self.trimmed(lib.errorMessage(connection)), sqlState: nil, connectionLost: lost) }
        let state = lib.resultErrorField(result, LibPQ.diagnosticSQLState).map { String(cString: $0) }
        return Failure(message: Self.trimmed(lib.resultErrorMessage(result)), sqlState: state, connectionLost: lost)
    }

    private static func trimmed(_ message: UnsafePointer<CChar>?) -> String {
        let text = message.map { String(cString: $0) } ?? ""
        // libpq's messages begin "ERROR:  " and end in a newline, sometimes with a detail line after.
        let first = text.split(separator: "\n").first.map(String.init) ?? "no reason given"
        return first.hasPrefix("ERROR:  ") ? String(first.dropFirst(8)) : first
    }
}

/// libpq's functions, looked up once. Prototypes from libpq-fe.h (PostgreSQL's stable client ABI, soname 5).
private struct LibPQ: @unchecked Sendable {
    static let connectionOK: Int32 = 0      // CONNECTION_OK
    static let commandOK: Int32 = 1         // PGRES_COMMAND_OK
    static let tuplesOK: Int32 = 2          // PGRES_TUPLES_OK
    static let diagnosticSQLState: Int32 = 67  // PG_DIAG_SQLSTATE, 'C'

    let connectdb: @convention(c) (UnsafePointer<CChar>) -> OpaquePointer?
    let status: @convention(c) (OpaquePointer) -> Int32
    let errorMessage: @convention(c) (OpaquePointer) -> UnsafePointer<CChar>?
    let finish: @convention(c) (OpaquePointer) -> Void
    let execParams: @convention(c) (OpaquePointer, UnsafePointer<CChar>, Int32, UnsafePointer<UInt32>?, UnsafePointer<UnsafePointer<CChar>?>?,
                                    UnsafePointer<Int32>?, UnsafePointer<Int32>?, Int32) -> OpaquePointer?
    let resultStatus: @convention(c) (OpaquePointer) -> Int32
    let resultErrorMessage: @convention(c) (OpaquePointer) -> UnsafePointer<CChar>?
    let resultErrorField: @convention(c) (OpaquePointer, Int32) -> UnsafePointer<CChar>?
    let ntuples: @convention(c) (OpaquePointer) -> Int32
    let nfields: @convention(c) (OpaquePointer) -> Int32
    let getvalue: @convention(c) (OpaquePointer, Int32, Int32) -> UnsafeMutablePointer<CChar>?
    let getlength: @convention(c) (OpaquePointer, Int32, Int32) -> Int32
    let getisnull: @convention(c) (OpaquePointer, Int32, Int32) -> Int32
    let clear: @convention(c) (OpaquePointer) -> Void
    let socket: @convention(c) (OpaquePointer) -> Int32
    let consumeInput: @convention(c) (OpaquePointer) -> Int32
    let notifies: @convention(c) (OpaquePointer) -> UnsafeMutableRawPointer?
    let freemem: @convention(c) (UnsafeMutableRawPointer?) -> Void

    private static let loaded: Result<LibPQ, PostgresConnection.Failure> = load()

    static func shared() throws(PostgresConnection.Failure) -> LibPQ { try loaded.get() }

    private static func load() -> Result<LibPQ, PostgresConnection.Failure> {
        // Never dlclosed: loaded once for the process.
        guard let handle = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL) else {
            let why = dlerror().map { String(cString: $0) } ?? "libpq.so.5 not found"
            return .failure(.init(message: "the PostgreSQL client library is not installed (\(why))", sqlState: nil, connectionLost: true))
        }
        var missing: String?
        func symbol<T>(_ name: String, as type: T.Type) -> T {
            guard let address = dlsym(handle, name) else {
                missing = missing ?? name
                return unsafeBitCast(dlsym(handle, "PQfinish") ?? UnsafeMutableRawPointer(bitPattern: 1)!, to: type)
            }
            return unsafeBitCast(address, to: type)
        }
        let lib = LibPQ(
            connectdb: symbol("PQconnectdb", as: (@convention(c) (UnsafePointer<CChar>) -> OpaquePointer?).self),
            status: symbol("PQstatus", as: (@convention(c) (OpaquePointer) -> Int32).self),
            errorMessage: symbol("PQerrorMessage", as: (@convention(c) (OpaquePointer) -> UnsafePointer<CChar>?).self),
            finish: symbol("PQfinish", as: (@convention(c) (OpaquePointer) -> Void).self),
            execParams: symbol("PQexecParams", as: (@convention(c) (OpaquePointer, UnsafePointer<CChar>, Int32, UnsafePointer<UInt32>?,
                                                                    UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?,
                                                                    UnsafePointer<Int32>?, Int32) -> OpaquePointer?).self),
            resultStatus: symbol("PQresultStatus", as: (@convention(c) (OpaquePointer) -> Int32).self),
            resultErrorMessage: symbol("PQresultErrorMessage", as: (@convention(c) (OpaquePointer) -> UnsafePointer<CChar>?).self),
            resultErrorField: symbol("PQresultErrorField", as: (@convention(c) (OpaquePointer, Int32) -> UnsafePointer<CChar>?).self),
            ntuples: symbol("PQntuples", as: (@convention(c) (OpaquePointer) -> Int32).self),
            nfields: symbol("PQnfields", as: (@convention(c) (OpaquePointer) -> Int32).self),
            getvalue: symbol("PQgetvalue", as: (@convention(c) (OpaquePointer, Int32, Int32) -> UnsafeMutablePointer<CChar>?).self),
            getlength: symbol("PQgetlength", as: (@convention(c) (OpaquePointer, Int32, Int32) -> Int32).self),
            getisnull: symbol("PQgetisnull", as: (@convention(c) (OpaquePointer, Int32, Int32) -> Int32).self),
            clear: symbol("PQclear", as: (@convention(c) (OpaquePointer) -> Void).self),
            socket: symbol("PQsocket", as: (@convention(c) (OpaquePointer) -> Int32).self),
            consumeInput: symbol("PQconsumeInput", as: (@convention(c) (OpaquePointer) -> Int32).self),
            notifies: symbol("PQnotifies", as: (@convention(c) (OpaquePointer) -> UnsafeMutableRawPointer?).self),
            freemem: symbol("PQfreemem", as: (@convention(c) (UnsafeMutableRawPointer?) -> Void).self))
        if let missing {
            return .failure(.init(message: "the PostgreSQL client library libpq.so.5 lacks \(missing)", sqlState: nil, connectionLost: true))
        }
        return .success(lib)
    }
}
