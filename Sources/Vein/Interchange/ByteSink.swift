import Foundation

/// Buffered writes to a file descriptor: an export writes many small pieces, and one write(2) per piece
/// would cost more than producing them.
final class ByteSink {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    static let flushSize = 1 << 20

    init(descriptor: Int32) {
        self.descriptor = descriptor
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
        var offset = 0
        while offset < buffer.count {
            let n = buffer[offset...].withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw FileError.cannotWrite("output", reason: String(cString: strerror(errno)))
            }
            offset += n
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
