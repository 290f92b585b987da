import CReadline
import Foundation
import Vein

/// The lines of a script, read from a stdio stream byte by byte: standard input (the stream a passphrase
/// was read from before them, so nothing it buffered is lost) or a file `.read` opened. A line is read
/// only as far as the caller allows (`next(limit:)`): input with no end to a line, such as `/dev/zero`,
/// is refused once it passes the limit, never buffered whole.
final class ScriptLines {
    private let stream: UnsafeMutablePointer<FILE>
    private let closesStream: Bool
    private var bytes: [UInt8] = []

    /// Standard input, which stays open.
    static var standardInput: ScriptLines { ScriptLines(stream: vein_stdin(), closesStream: false) }

    /// The file open on `descriptor`, closed with this reader.
    init(descriptor: Int32) throws {
        guard let stream = fdopen(descriptor, "r") else {
            close(descriptor)
            throw FileError.unreadable("the script", reason: String(cString: strerror(errno)))
        }
        self.stream = stream
        closesStream = true
    }

    private init(stream: UnsafeMutablePointer<FILE>, closesStream: Bool) {
        self.stream = stream
        self.closesStream = closesStream
    }

    deinit {
        if closesStream { fclose(stream) }
    }

    /// The next line without its "\n" (or "\r\n"), nil at the end of the input. Throws
    /// `StatementAccumulator.tooLong` as soon as the line passes `limit` bytes, having read no more of it.
    func next(limit: Int, name: String) throws -> String? {
        bytes.removeAll(keepingCapacity: bytes.count <= 1 << 16)
        flockfile(stream)
        defer { funlockfile(stream) }
        while true {
            let c = getc_unlocked(stream)
            if c == EOF {
                if ferror(stream) != 0 {
                    let reason = String(cString: strerror(errno))
                    clearerr(stream)
                    throw FileError.unreadable(name, reason: reason)
                }
                if bytes.isEmpty { return nil }
                break
            }
            if c == 0x0A { break }
            guard bytes.count < limit else { throw StatementAccumulator.tooLong }
            bytes.append(UInt8(c))
        }
        if bytes.last == 0x0D { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }
}
