import CCrypto
import Foundation

/// Cryptographically secure random bytes from OpenSSL (the library SQLCipher itself uses).
package enum SecureRandom {
    package static func bytes(_ count: Int) throws -> Data {
        var data = Data(count: count)
        let ok = data.withUnsafeMutableBytes { buffer in
            RAND_bytes(buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(count))
        }
        guard ok == 1 else { throw CryptoError.randomUnavailable }
        return data
    }

    /// Fills a fixed-size buffer; used by ULID generation on its hot path.
    static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        let ok = RAND_bytes(buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(buffer.count))
        precondition(ok == 1, "OpenSSL RAND_bytes failed: no secure randomness available")
    }
}

package enum CryptoError: Error {
    case randomUnavailable
}

/// SHA-256 through OpenSSL's EVP interface.
package enum SHA256 {
    package static func digest(_ data: Data) -> Data {
        var out = Data(count: 32)
        var length: UInt32 = 0
        data.withUnsafeBytes { input in
            out.withUnsafeMutableBytes { output in
                _ = EVP_Digest(input.baseAddress, input.count,
                               output.baseAddress!.assumingMemoryBound(to: UInt8.self), &length,
                               EVP_sha256(), nil)
            }
        }
        return out
    }

    package static func hex(_ text: String) -> String { Hex.encode(digest(Data(text.utf8))) }

    /// The digest of `parts` one after another, read in place (a secret's bytes are never copied).
    package static func digest(_ parts: [UnsafeRawBufferPointer]) -> Data {
        var out = Data(count: 32)
        var length: UInt32 = 0
        let context = EVP_MD_CTX_new()
        defer { EVP_MD_CTX_free(context) }
        EVP_DigestInit_ex(context, EVP_sha256(), nil)
        for part in parts { EVP_DigestUpdate(context, part.baseAddress, part.count) }
        out.withUnsafeMutableBytes { _ = EVP_DigestFinal_ex(context, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), &length) }
        return out
    }
}

/// SHA-256 over bytes that arrive in pieces (a sealed file as it is written or read).
package final class SHA256Hasher {
    private let context: OpaquePointer

    package init() {
        context = EVP_MD_CTX_new()
        EVP_DigestInit_ex(context, EVP_sha256(), nil)
    }

    deinit { EVP_MD_CTX_free(context) }

    package func update(_ bytes: UnsafeRawBufferPointer) {
        EVP_DigestUpdate(context, bytes.baseAddress, bytes.count)
    }

    package func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { update($0) } }

    package func finish() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &out, &length)
        return out
    }
}
