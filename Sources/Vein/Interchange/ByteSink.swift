import Foundation

/// Buffered writes to a file descriptor: an export writes many small pieces, and one write(2) per piece
/// would cost more than producing them.
final class ByteSink {
    private let descriptor: Int32
    /// The output's name for messages.
    private let name: String
    private var buffer: [UInt8] = []
    static let flushSize = 1 << 20

    init(descriptor: Int32, name: String) {
        self.descriptor = descriptor
        self.name = name
        buffer.reserveCapacity(Self.flushSize + 4096)
    }

    func write(_ text: String) throws {
        try write(bytes: Array(text.utf8))
    }

    func write(bytes: [UInt8]) throws {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.flushSize { try flush() }
    }

    func flush() throws {
        try FileSystem.writeAll(descriptor, buffer, path: name)
        buffer.removeAll(keepingCapacity: true)
    }
}
