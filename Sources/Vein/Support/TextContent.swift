import Foundation

/// What a file holds when it is text: JSON (a record file, a manifest, a plan) or other text (a script, a
/// key file). Told from its first bytes, for a file named where a store is expected: an encrypted store
/// is random bytes from its first byte on, which are never UTF-8 text over a page, and a plaintext one
/// starts with SQLite's binary header.
package enum TextContent: Equatable, Sendable {
    case json
    case text

    /// How many bytes are looked at: a store's first page.
    static let sampleSize = 4096

    /// The content of the file at `path`, or nil when it is not text (or cannot be read: the caller's own
    /// open reports why).
    package static func of(file path: String) -> TextContent? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let sample = try? handle.read(upToCount: sampleSize) else { return nil }
        return of(Array(sample), cut: sample.count == sampleSize)
    }

    /// Text as `ExistingContent` judges it (UTF-8 without NUL), then JSON if it starts with `{` or `[`
    /// after whitespace and `//` comments (JSON5). `cut`: the bytes are the start of a longer file, so a
    /// character may straddle their end.
    package static func of(_ bytes: [UInt8], cut: Bool = false) -> TextContent? {
        guard !bytes.isEmpty, ExistingContent.isText(bytes[...], whole: !cut) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        var rest = Substring(text)
        while true {
            rest = rest.drop { $0.isWhitespace }
            guard rest.hasPrefix("//") else { break }
            rest = rest.drop { $0 != "\n" }
        }
        return rest.first == "{" || rest.first == "[" ? .json : .text
    }
}
