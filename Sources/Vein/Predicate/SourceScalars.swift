/// The Unicode scalars of an expression's source, by index, for the lexer: the UTF-8 bytes themselves when
/// the source is ASCII (a scalar a byte: no array of 4 bytes a character to make, and a token's text is
/// copied from the bytes at once), the scalars otherwise.
struct SourceScalars {
    private enum Storage {
        case ascii([UInt8])
        case unicode([Unicode.Scalar])
    }

    private let storage: Storage
    let count: Int

    init(ascii bytes: [UInt8]) {
        storage = .ascii(bytes)
        count = bytes.count
    }

    init(_ scalars: [Unicode.Scalar]) {
        storage = .unicode(scalars)
        count = scalars.count
    }

    subscript(i: Int) -> Unicode.Scalar {
        switch storage {
        case .ascii(let bytes): return Unicode.Scalar(bytes[i])
        case .unicode(let scalars): return scalars[i]
        }
    }

    /// The text of the scalars in `range`.
    func string(_ range: Range<Int>) -> String {
        switch storage {
        case .ascii(let bytes): return String(decoding: bytes[range], as: UTF8.self)
        case .unicode(let scalars): return String(String.UnicodeScalarView(scalars[range]))
        }
    }

    /// Whether the scalars in `range` are all `scalar`.
    func all(_ range: Range<Int>, are scalar: Unicode.Scalar) -> Bool {
        range.allSatisfy { self[$0] == scalar }
    }
}
