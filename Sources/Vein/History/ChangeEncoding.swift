import CSQLCipher
import Foundation

/// The bytes of a logged table's changes in one transaction (docs/history.md#the-bytes-of-a-change):
/// one entry after another, each
///
///     kind (1 byte) · clock offset (varint) · key cells · column count (varint) · (column index (varint), cell)…
///
/// and a cell is a tag byte (0 NULL, 1 integer, 2 real, 3 text, 4 blob) and its payload: an integer as a
/// zigzag varint, a real as its 8 bytes (little-endian), text and blobs as a varint length and the bytes.
/// Cells are SQLite's values as stored, so a replay writes back exactly what was written.
struct ChangeBytesWriter {
    private(set) var bytes: [UInt8] = []
    /// Entries written.
    private(set) var count = 0

    var isEmpty: Bool { bytes.isEmpty }

    mutating func beginEntry(_ kind: ChangeKind, clockOffset: UInt64 = 0) {
        bytes.append(kind.rawValue)
        appendVarint(clockOffset)
        count += 1
    }

    mutating func appendVarint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    /// A cell from an argument of the logging function, as SQLite holds it.
    mutating func appendCell(_ value: OpaquePointer) {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER:
            bytes.append(1)
            let v = sqlite3_value_int64(value)
            appendVarint(UInt64(bitPattern: (v << 1) ^ (v >> 63)))
        case SQLITE_FLOAT:
            bytes.append(2)
            withUnsafeBytes(of: sqlite3_value_double(value).bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
        case SQLITE_TEXT:
            bytes.append(3)
            let start = sqlite3_value_text(value)
            appendCounted(UnsafeRawPointer(start), Int(sqlite3_value_bytes(value)))
        case SQLITE_BLOB:
            bytes.append(4)
            let start = sqlite3_value_blob(value)
            appendCounted(start, Int(sqlite3_value_bytes(value)))
        default:
            bytes.append(0)
        }
    }

    /// A cell from a value in hand (a record written by Swift, not by a trigger).
    mutating func appendCell(_ value: DatabaseValue) {
        switch value {
        case .null: bytes.append(0)
        case .integer(let v):
            bytes.append(1)
            appendVarint(UInt64(bitPattern: (v << 1) ^ (v >> 63)))
        case .real(let d):
            bytes.append(2)
            withUnsafeBytes(of: d.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
        case .text(let s):
            bytes.append(3)
            var s = s
            s.withUTF8 { appendCounted(UnsafeRawPointer($0.baseAddress), $0.count) }
        case .blob(let d):
            bytes.append(4)
            d.withUnsafeBytes { appendCounted($0.baseAddress, $0.count) }
        }
    }

    /// A cell from an engine value, stored as `FieldCodec.bind` stores it.
    mutating func appendCell(_ value: Value) {
        switch value {
        case .null: bytes.append(0)
        case .string(let text): appendText(text)
        case .int(let v):
            bytes.append(1)
            appendVarint(UInt64(bitPattern: (v << 1) ^ (v >> 63)))
        case .bool(let b):
            bytes.append(1)
            bytes.append(b ? 2 : 0)
        case .double(let d), .date(let d):
            bytes.append(2)
            withUnsafeBytes(of: d.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
        case .data(let d):
            bytes.append(4)
            d.withUnsafeBytes { appendCounted($0.baseAddress, $0.count) }
        case .array: appendCell(value.databaseValue)
        }
    }

    /// A whole change as `ChangeBytesReader` reads it (an insert with all its columns in one entry).
    mutating func append(_ change: LoggedChange) {
        beginEntry(change.kind, clockOffset: change.clockOffset)
        for key in change.key { appendCell(key) }
        appendVarint(UInt64(change.values.count))
        for (column, value) in change.values {
            appendVarint(UInt64(column))
            appendCell(value)
        }
    }

    mutating func appendText(_ text: String) {
        var text = text
        text.withUTF8 { appendText(utf8: $0) }
    }

    mutating func appendText(utf8: UnsafeBufferPointer<UInt8>) {
        bytes.append(3)
        appendCounted(UnsafeRawPointer(utf8.baseAddress), utf8.count)
    }

    private mutating func appendCounted(_ start: UnsafeRawPointer?, _ count: Int) {
        appendVarint(UInt64(count))
        guard count > 0, let start else { return }
        bytes.append(contentsOf: UnsafeRawBufferPointer(start: start, count: count))
    }

    /// Forgets everything after byte `length`, which held `count` entries.
    mutating func truncate(toLength length: Int, count: Int) {
        bytes.removeSubrange(length...)
        self.count = count
    }

    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        count = 0
    }
}

/// One change read back from the log.
package struct LoggedChange: Equatable, Sendable {
    package var kind: ChangeKind
    /// Added to the transaction's clock time: 0 for a change made by this replica in that transaction.
    package var clockOffset: UInt64
    package var key: [DatabaseValue]
    /// (index into the table's value columns, new value).
    package var values: [(column: Int, value: DatabaseValue)]

    package static func == (a: LoggedChange, b: LoggedChange) -> Bool {
        a.kind == b.kind && a.clockOffset == b.clockOffset && a.key == b.key
            && a.values.map(\.column) == b.values.map(\.column) && a.values.map(\.value) == b.values.map(\.value)
    }
}

/// Reads what `ChangeBytesWriter` wrote, refusing bytes that are not a whole, valid record.
struct ChangeBytesReader {
    private var cursor: CellCursor
    private let keyCount: Int
    private let columnCount: Int

    typealias Damaged = CellCursor.Damaged

    init(_ bytes: [UInt8], keyCount: Int, columnCount: Int) {
        cursor = CellCursor(bytes)
        self.keyCount = keyCount
        self.columnCount = columnCount
    }

    /// Every change, in order; an insert's continued columns are read into the insert.
    mutating func readAll() throws(Damaged) -> [LoggedChange] {
        var result: [LoggedChange] = []
        while !cursor.isAtEnd {
            guard let kind = ChangeKind(rawValue: try cursor.byte()) else { throw Damaged() }
            let clock = try cursor.varint()
            var key: [DatabaseValue] = []
            for _ in 0..<keyCount { key.append(try cursor.cell()) }
            let n = try cursor.varint()
            guard n <= UInt64(columnCount) else { throw Damaged() }
            var values: [(column: Int, value: DatabaseValue)] = []
            for _ in 0..<n {
                let column = try cursor.varint()
                guard column < UInt64(columnCount) else { throw Damaged() }
                values.append((Int(column), try cursor.cell()))
            }
            // More columns of the insert before it (a wide table) join that insert: readers see one.
            if kind == .insertContinued {
                guard let last = result.last, last.kind == .insert, last.key == key else { throw Damaged() }
                // The continued columns are others than those before them: one insert writes a column once,
                // so the joined insert reads back as it is written (the fuzzer found a repeated one).
                let joined = last.values + values
                guard joined.count <= columnCount, Set(joined.map(\.column)).count == joined.count else { throw Damaged() }
                result[result.count - 1].values = joined
                continue
            }
            result.append(LoggedChange(kind: kind, clockOffset: clock, key: key, values: values))
        }
        return result
    }
}

/// Reads the varints and cells `ChangeBytesWriter` writes, front to back, refusing what runs past the end
/// or is not a valid value.
struct CellCursor {
    private let bytes: [UInt8]
    private(set) var offset = 0

    struct Damaged: Error {}

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { offset >= bytes.count }

    mutating func byte() throws(Damaged) -> UInt8 {
        guard offset < bytes.count else { throw Damaged() }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func varint() throws(Damaged) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let b = try byte()
            guard shift < 64, shift < 63 || b <= 1 else { throw Damaged() }
            result |= UInt64(b & 0x7f) << shift
            if b < 0x80 { return result }
            shift += 7
        }
    }

    private mutating func counted() throws(Damaged) -> ArraySlice<UInt8> {
        let n = try varint()
        guard n <= UInt64(bytes.count - offset) else { throw Damaged() }
        defer { offset += Int(n) }
        return bytes[offset..<offset + Int(n)]
    }

    mutating func cell() throws(Damaged) -> DatabaseValue {
        switch try byte() {
        case 0: return .null
        case 1:
            let z = try varint()
            return .integer(Int64(bitPattern: (z >> 1) ^ (0 &- (z & 1))))
        case 2:
            guard bytes.count - offset >= 8 else { throw Damaged() }
            var bits: UInt64 = 0
            for i in 0..<8 { bits |= UInt64(bytes[offset + i]) << (8 * UInt64(i)) }
            offset += 8
            // SQLite holds no NaN (it stores NULL instead), so no recorded cell is one.
            guard !Double(bitPattern: bits).isNaN else { throw Damaged() }
            return .real(Double(bitPattern: bits))
        case 3:
            let text = try counted()
            guard let s = String(validating: text, as: UTF8.self) else { throw Damaged() }
            return .text(s)
        case 4: return .blob(Data(try counted()))
        default: throw Damaged()
        }
    }
}
