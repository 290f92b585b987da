import Foundation
import Vein

/// The lines of a script, read from a file descriptor a chunk at a time: standard input (script mode; a
/// passphrase read before them is read from it without buffering, so nothing is lost) or a file `.read`
/// opened. A line is read only as far as the caller allows (`next(limit:name:)`): input with no end to a
/// line, such as `/dev/zero`, is refused once it passes the limit, never buffered whole.
final class ScriptLines {
    private let descriptor: Int32
    private let closesDescriptor: Bool
    private var buffer = [UInt8](repeating: 0, count: 64 << 10)
    /// The unread bytes are `buffer[start..<end]`.
    private var start = 0, end = 0
    private var atEnd = false

    /// Standard input, which stays open.
    static var standardInput: ScriptLines { ScriptLines(descriptor: STDIN_FILENO, closesDescriptor: false) }

    /// The file open on `descriptor`, closed with this reader.
    convenience init(descriptor: Int32) {
        self.init(descriptor: descriptor, closesDescriptor: true)
    }

    private init(descriptor: Int32, closesDescriptor: Bool) {
        self.descriptor = descriptor
        self.closesDescriptor = closesDescriptor
    }

    deinit {
        if closesDescriptor { close(descriptor) }
    }

    /// The next line without its "\n" (or "\r\n"), nil at the end of the input. Throws
    /// `StatementAccumulator.tooLong` as soon as the line passes `limit` bytes, having read at most a chunk
    /// more of it.
    func next(limit: Int, name: String) throws -> String? {
        var line: [UInt8] = []
        while true {
            if start == end {
                guard try refill(name) else {
                    if line.isEmpty { return nil }
                    break
                }
            }
            let newline = buffer[start..<end].firstIndex(of: 0x0A)
            let taken = (newline ?? end) - start
            guard line.count + taken <= limit else { throw StatementAccumulator.tooLong }
            line.append(contentsOf: buffer[start..<(start + taken)])
            start += taken
            if newline != nil {
                start += 1
                break
            }
        }
        if line.last == 0x0D { line.removeLast() }
        return String(decoding: line, as: UTF8.self)
    }

    /// Reads the next chunk; false at the end of the input.
    private func refill(_ name: String) throws -> Bool {
        guard !atEnd else { return false }
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                (start, end) = (0, count)
                return true
            }
            if count == 0 {
                atEnd = true
                return false
            }
            if errno != EINTR { throw FileError.unreadable(name, reason: String(cString: strerror(errno))) }
        }
    }
}
