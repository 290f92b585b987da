import Foundation

/// A snapshot or segment as it lies in a backup folder: `SealedHeader`, the payload encrypted with
/// AES-256-GCM under the backup key, and the tag (docs/backup.md#sealed-files). Written under a temporary
/// name and linked into place (ARCHITECTURE.md I13), so a file is whole or absent and never replaces
/// another; its digest, SHA-256 over all of it, is what the next file in the chain names.
enum SealedFile {
    /// Bytes read and sealed at a time: a snapshot of any size is sealed in constant memory.
    static let pieceLength = 1 << 20

    /// Seals `prefix` followed by the bytes of the file at `bodyPath` (a snapshot's copy), or `prefix` alone,
    /// into a new file at `path`. `header`'s nonce, key id and length are filled here. Returns the header
    /// as written and the file's digest.
    static func write(to path: String, header: SealedHeader, key: BackupKey, prefix: [UInt8],
                      bodyPath: String? = nil) throws -> (header: SealedHeader, digest: [UInt8]) {
        var header = header
        header.nonce = [UInt8](try SecureRandom.bytes(AESGCM.nonceLength))
        header.keyID = key.id
        let body = try bodyPath.map { try FileReader(path: $0) }
        header.payloadLength = UInt64(prefix.count) + UInt64(body?.size ?? 0)
        let headerBytes = header.encoded
        let cipher = try key.withBytes { key throws(BackupError) in
            try AESGCM(sealing: true, key: key, nonce: header.nonce, associatedData: headerBytes)
        }
        let staged = try StagedFile(target: path, tag: StagedFile.Tag.sealing.rawValue, mode: 0o600, keepsMode: false, placement: .create)
        defer { staged.discard() }
        let hasher = SHA256Hasher()
        func emit(_ bytes: [UInt8]) throws {
            hasher.update(bytes)
            try staged.write(bytes)
        }
        try emit(headerBytes)
        var out: [UInt8] = []
        try prefix.withUnsafeBytes { try cipher.update($0, into: &out) }
        try emit(out)
        while let piece = try body?.next(pieceLength) {
            try piece.withUnsafeBytes { try cipher.update($0, into: &out) }
            try emit(out)
        }
        try emit(try cipher.finish())
        try staged.commit()
        return (header, hasher.finish())
    }

    /// The header of the file at `path`, unauthenticated (listing, and choosing a key).
    static func header(of path: String) throws -> SealedHeader {
        let reader = try FileReader(path: path)
        let bytes = try reader.next(SealedHeader.length) ?? []
        do { return try SealedHeader(decoding: bytes) } catch {
            throw BackupError.damaged(file: path, reason: Self.describe(error))
        }
    }

    /// Authenticates and decrypts the file at `path`, handing the payload to `sink` piece by piece, and
    /// returns its header and digest. What `sink` received is to be trusted only once this returns: a
    /// file that is not the one sealed is refused at its end, with `BackupError.damaged` naming it.
    ///
    /// `place` checks the header against where the file lies before anything is decrypted (a file out of
    /// place is named as such, not as sealed with another key); `key` gives the key for the header's key id.
    static func open(_ path: String, place: (SealedHeader) throws -> Void, key keyFor: ([UInt8]) throws -> BackupKey,
                     sink: (UnsafeRawBufferPointer) throws -> Void) throws -> (header: SealedHeader, digest: [UInt8]) {
        let reader = try FileReader(path: path)
        let header = try Self.header(of: path)
        try place(header)
        let key = try keyFor(header.keyID)
        guard header.keyID == key.id else { throw BackupError.wrongKey(file: path, source: "the key given") }
        // The length is not yet authenticated: compared in UInt64, where no value of it can overflow.
        let expected = UInt64(SealedHeader.length + AESGCM.tagLength).addingReportingOverflow(header.payloadLength)
        guard !expected.overflow, UInt64(reader.size) == expected.partialValue else {
            throw BackupError.damaged(file: path, reason: "it is \(Phrase.count(reader.size, "byte")) long, not the "
                                      + "\(expected.overflow ? "more than 2^64" : String(expected.partialValue)) its header says")
        }
        let hasher = SHA256Hasher()
        let headerBytes = try reader.next(SealedHeader.length) ?? []
        hasher.update(headerBytes)
        let cipher = try key.withBytes { key throws(BackupError) in
            try AESGCM(sealing: false, key: key, nonce: header.nonce, associatedData: headerBytes)
        }
        var remaining = Int(header.payloadLength)
        var out: [UInt8] = []
        while remaining > 0, let piece = try reader.next(min(pieceLength, remaining)) {
            hasher.update(piece)
            remaining -= piece.count
            try piece.withUnsafeBytes { try cipher.update($0, into: &out) }
            try out.withUnsafeBytes(sink)
        }
        let tag = try reader.next(AESGCM.tagLength) ?? []
        hasher.update(tag)
        guard cipher.matches(tag: tag) else {
            throw BackupError.damaged(file: path, reason: "it is not what was sealed (its authentication tag does not match)")
        }
        return (header, hasher.finish())
    }

    static func describe(_ problem: SealedHeader.Problem) -> String {
        switch problem {
        case .notSealed: return "it is not a sealed Vein backup file"
        case .version(let v): return "it is in sealed-file format \(v), which this Vein does not read"
        case .malformed: return "its header is malformed"
        }
    }
}

/// Reads a file front to back in pieces, every call checked.
final class FileReader {
    let path: String
    let size: Int
    private let descriptor: Int32

    init(path: String) throws {
        self.path = path
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw errno == ENOENT ? FileError.notFound(path) : FileError.unreadable(path, reason: String(cString: strerror(errno))) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let code = errno
            close(descriptor)
            throw FileError.unreadable(path, reason: String(cString: strerror(code)))
        }
        size = Int(info.st_size)
    }

    deinit { close(descriptor) }

    /// Up to `count` bytes, fewer only at the end; nil at the end.
    func next(_ count: Int) throws -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, count - filled) }
            if n < 0 {
                if errno == EINTR { continue }
                throw FileError.unreadable(path, reason: String(cString: strerror(errno)))
            }
            if n == 0 { break }
            filled += n
        }
        guard filled > 0 else { return nil }
        buffer.removeSubrange(filled...)
        return buffer
    }
}

extension SealedFile {
    /// SHA-256 of the whole file at `path`: what the next file in its chain names.
    static func digest(of path: String) throws -> [UInt8] {
        let reader = try FileReader(path: path)
        let hasher = SHA256Hasher()
        while let piece = try reader.next(pieceLength) { hasher.update(piece) }
        return hasher.finish()
    }
}
