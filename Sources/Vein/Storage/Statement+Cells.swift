import CSQLCipher
import Foundation

/// Typed binds and what a cell holds, for the field codecs (`FieldCodec`): a value goes to SQLite and
/// comes back without passing through `DatabaseValue`.
extension Statement {
    // MARK: Binding one storage class (1-based indexes)

    public func bindNull(at index: Int) throws {
        try check(sqlite3_bind_null(handle, Int32(index)))
    }

    public func bind(int64 value: Int64, at index: Int) throws {
        try check(sqlite3_bind_int64(handle, Int32(index), value))
    }

    public func bind(double value: Double, at index: Int) throws {
        try check(sqlite3_bind_double(handle, Int32(index), value))
    }

    public func bind(text value: String, at index: Int) throws {
        // The string's own UTF-8 bytes with their count (passing a String as a C string copies it, and
        // would stop at a NUL, which Swift strings may contain).
        var value = value
        try value.withUTF8 { try bind(utf8: $0, at: index) }
    }

    /// Binds UTF-8 text SQLite copies (transient): the caller's bytes may be gone after the call.
    package func bind(utf8 bytes: UnsafeBufferPointer<UInt8>, at index: Int) throws {
        let rc = bytes.withMemoryRebound(to: CChar.self) { chars in
            // Empty text must still bind as text, not NULL: pass a non-nil pointer.
            sqlite3_bind_text64(handle, Int32(index), chars.baseAddress ?? UnsafePointer(bitPattern: 1)!, sqlite3_uint64(chars.count),
                                vein_sqlite_transient(), UInt8(SQLITE_UTF8))
        }
        try check(rc)
    }

    public func bind(blob value: Data, at index: Int) throws {
        let rc = value.withUnsafeBytes { raw in
            // A zero-length blob must still bind as a blob, not NULL: pass a non-nil pointer.
            sqlite3_bind_blob64(handle, Int32(index), raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), sqlite3_uint64(raw.count),
                                vein_sqlite_transient())
        }
        try check(rc)
    }

    private func check(_ rc: Int32) throws {
        guard rc == SQLITE_OK else { throw database.lastError(rc, sql: sql) }
    }

    // MARK: What a cell holds (0-based columns)

    /// Whether the text cell is valid UTF-8 (SQLite keeps whatever bytes it was given).
    func hasValidUTF8Text(_ column: Int) -> Bool { Self.isValidUTF8(textBytes(column)) }

    static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if bytes.allSatisfy({ $0 < 0x80 }) { return true }
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    /// `text "abc"`, `integer 2`, `a blob of 3 bytes`: what a cell holds, as a person reads it.
    func cellDescription(_ column: Int) -> String {
        switch storageClass(column) {
        case SQLITE_NULL: return "null"
        case SQLITE_INTEGER: return "integer \(int64(column))"
        case SQLITE_FLOAT:
            let d = double(column)
            return "real " + (d.isFinite ? JSONWriter.formatDouble(d) : d < 0 ? "-Infinity" : "Infinity")
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, Int32(column)))
            return "a blob of \(Phrase.count(count, "byte"))"
        default:
            let bytes = textBytes(column)
            guard Self.isValidUTF8(bytes) else { return "text that is not UTF-8" }
            let text = String(decoding: bytes, as: UTF8.self)
            let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
            return "text \"" + shown.escapingControlCharacters + "\""
        }
    }
}
