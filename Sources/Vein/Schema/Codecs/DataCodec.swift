import CSQLCipher
import Foundation

/// Bytes in a BLOB; base64 in JSON.
final class DataCodec: FieldTypeCodec {
    var fieldType: FieldType { .data }

    func normalized(_ value: Value) throws(ValueRefusal) -> Value {
        guard case .data = value else { throw .wrongType }
        return value
    }

    func mismatch(_ s: Statement, _ column: Int, storage: Int32) -> CellMismatch? {
        storage == SQLITE_BLOB ? nil : wrongStorage(s, column)
    }

    func readChecked(_ s: Statement, _ column: Int) -> Value { .data(s.data(column)) }
    func value(fromDatabase value: DatabaseValue) -> Value { .data(value.data ?? Data()) }

    func value(fromJSON json: JSONValue) throws(ValueMismatch) -> Value {
        guard let s = json.stringValue else { throw jsonMismatch(json) }
        guard let data = Data(base64Encoded: s) else { throw ValueMismatch(expectation: "base64 data, found \"\(s.prefix(20))\"") }
        return .data(data)
    }

    func json(_ value: Value) -> JSONValue {
        if case .data(let d) = value { return .string(d.base64EncodedString()) } else { return .null }
    }

    func writeJSON(_ s: Statement, _ column: Int, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        out += s.data(column).base64EncodedString().utf8
        out.append(UInt8(ascii: "\""))
    }

    func syntheticValue(row i: Int, unique: Bool) -> Value { .data(Data([UInt8(i), 0, 255])) }
    var emptyValues: [Value] { [.data(Data())] }
}
