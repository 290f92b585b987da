/// What a sync segment carries (docs/sync.md#segments): what its replica had received of every other when
/// it was written, then that replica's own transactions after the last segment, as a backup's segment
/// holds them (`SegmentPayload`).
///
///     replica count (varint), then per replica: cells replica id · last segment received
///     then the transactions, as `SegmentPayload`
///
/// A replica applies a segment only once it holds everything the segment's writer had received, so a change
/// never reaches a row before the change that made it (causal order), whatever order the relay delivers in.
struct SyncSegment {
    var received: [String: UInt64]
    var transactions: [LoggedTransaction]

    static func encode(received: [String: UInt64], payload: SegmentPayload) -> [UInt8] {
        var writer = ChangeBytesWriter()
        writer.appendVarint(UInt64(received.count))
        for (replica, sequence) in received.sorted(by: { $0.key < $1.key }) {
            writer.appendCell(DatabaseValue.text(replica))
            writer.appendCell(DatabaseValue.integer(Int64(sequence)))
        }
        return writer.bytes + payload.bytes
    }

    init(decoding bytes: [UInt8], file: String) throws {
        let (received, offset) = try Self.received(in: bytes, file: file)
        self.received = received
        transactions = try SegmentPayload.transactions(in: Array(bytes[offset...]), file: file)
    }

    /// What a segment's payload says its replica had received, read from the payload's start (`bytes` may
    /// be only a prefix of it), and where the transactions begin.
    static func received(in bytes: [UInt8], file: String) throws -> (received: [String: UInt64], offset: Int) {
        var cursor = CellCursor(bytes)
        var received: [String: UInt64] = [:]
        do {
            let count = try cursor.varint()
            guard count <= UInt64(bytes.count) else { throw CellCursor.Damaged() }
            for _ in 0..<count {
                guard let replica = try cursor.cell().string, let sequence = try cursor.cell().int64, sequence >= 0 else {
                    throw CellCursor.Damaged()
                }
                received[replica] = UInt64(sequence)
            }
        } catch {
            throw BackupError.damaged(file: file, reason: "what it says it received is malformed")
        }
        return (received, cursor.offset)
    }
}
