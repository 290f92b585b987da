/// Words for engine errors that reach a message through string interpolation (a plan names a schema file
/// that cannot be read, say), so no message shows Swift's debug form (`notFound("nope.json5")`).
extension FileError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .notFound(let path): return "no such file: \(path)"
        case .unreadable(let path, let reason): return "cannot read \(path): \(reason)"
        case .notText(let path): return "\(path) is not UTF-8 text"
        case .cannotWrite(let path, let reason), .writeFailed(let path, let reason): return "cannot write \(path): \(reason)"
        case .alreadyExists(let path): return "\(path) already exists"
        case .outputClosed(let path): return "\(path) was closed by its reader"
        case .tooLarge(let path, let limit): return "cannot read \(path): it is larger than \(limit >> 20) MiB"
        }
    }
}

extension CryptoError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .randomUnavailable: return "no secure random numbers are available (OpenSSL's RAND_bytes failed)"
        }
    }
}
