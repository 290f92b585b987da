import Foundation

/// What an existing file holds, as far as a write that would replace it needs to know: whether it may be
/// something that cannot be made again. Vein's outputs (JSON, history) are UTF-8 text; an encrypted store
/// looks like random bytes, a plaintext one starts with SQLite's header, and a raw key is 64 hex digits on a
/// line. Anything of those is replaced only when the person says so.
package enum ExistingContent {
    /// How much of the file is read to decide: an encrypted store fails the UTF-8 test in its first bytes.
    static let sampleSize = 64 * 1024

    /// Why `path` should not be replaced without being told to, or nil when it is empty, text, or not a
    /// regular file (a device or FIFO is written into, not replaced; nothing is read from it here).
    package static func reasonToKeep(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size > 0 else { return nil }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return "it cannot be read to see what it holds (\(String(cString: strerror(errno))))" }
        defer { close(descriptor) }
        var sample = [UInt8](repeating: 0, count: sampleSize)
        var filled = 0
        while filled < sample.count {
            let count = sample.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return "it cannot be read to see what it holds (\(String(cString: strerror(errno))))" }
            if count == 0 { break }
            filled += count
        }
        let bytes = sample[0..<filled]
        let whole = Int64(filled) >= Int64(info.st_size)
        if bytes.starts(with: sqliteHeader) { return "it is a SQLite database" }
        if !isText(bytes, whole: whole) { return "it holds binary data, not UTF-8 text (an encrypted store looks like this)" }
        if whole, isRawKey(bytes) { return "it holds a raw key (64 hex digits)" }
        return nil
    }

    /// The first 16 bytes of every unencrypted SQLite file. An encrypted file starts with random salt.
    static let sqliteHeader = Array("SQLite format 3\0".utf8)

    /// UTF-8 without NUL (no text format Vein writes has one). A sample that ends inside a character is
    /// judged on the characters before it.
    static func isText(_ bytes: ArraySlice<UInt8>, whole: Bool) -> Bool {
        guard !bytes.contains(0) else { return false }
        var checked = bytes
        if !whole {
            // Up to 3 bytes of a character cut off by the sample's end.
            let cut = bytes.suffix(3).lastIndex { $0 & 0xC0 == 0xC0 }
            if let cut { checked = bytes[bytes.startIndex..<cut] }
        }
        return String(validating: checked, as: UTF8.self) != nil
    }

    /// 64 hex digits, whitespace around them: how a raw key file reads (`KeyFile`).
    static func isRawKey(_ bytes: ArraySlice<UInt8>) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0 | 0x20) }
    }
}
