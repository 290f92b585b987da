import CCrypto
import Foundation

/// AES-256-GCM through OpenSSL's libcrypto (the library SQLCipher already links), one message at a time,
/// fed in pieces so a snapshot of any size is sealed without holding it. The tag covers the associated
/// data and every piece; a reader trusts nothing it decrypted until `finish` has checked the tag.
final class AESGCM {
    static let keyLength = 32
    static let nonceLength = 12
    static let tagLength = 16

    private let context: OpaquePointer
    private let sealing: Bool

    /// Starts a message under `key` (32 bytes) and `nonce` (12 bytes, never reused with the same key),
    /// authenticating `associatedData`.
    init(sealing: Bool, key: UnsafeRawBufferPointer, nonce: [UInt8], associatedData: [UInt8]) throws(BackupError) {
        precondition(key.count == Self.keyLength && nonce.count == Self.nonceLength)
        guard let context = EVP_CIPHER_CTX_new() else { throw .cryptoFailed("no cipher context") }
        self.context = context
        self.sealing = sealing
        let initialize = sealing ? EVP_EncryptInit_ex : EVP_DecryptInit_ex
        var ok = initialize(context, EVP_aes_256_gcm(), nil, nil, nil) == 1
            && vein_gcm_set_iv_length(context, Int32(Self.nonceLength)) == 1
        ok = ok && nonce.withUnsafeBufferPointer { nonce in
            initialize(context, nil, nil, key.baseAddress!.assumingMemoryBound(to: UInt8.self), nonce.baseAddress) == 1
        }
        var ignored: Int32 = 0
        ok = ok && associatedData.withUnsafeBufferPointer { data in
            (sealing ? EVP_EncryptUpdate : EVP_DecryptUpdate)(context, nil, &ignored, data.baseAddress, Int32(data.count)) == 1
        }
        guard ok else { throw .cryptoFailed("AES-256-GCM could not start") }
    }

    deinit { EVP_CIPHER_CTX_free(context) }

    /// Encrypts or decrypts one piece (GCM is a stream cipher: the output is as long as the input).
    func update(_ input: UnsafeRawBufferPointer, into output: inout [UInt8]) throws(BackupError) {
        output.removeAll(keepingCapacity: true)
        guard input.count > 0 else { return }
        output = [UInt8](repeating: 0, count: input.count)
        // OpenSSL counts in Int32: a larger piece (one huge commit's segment) goes in slices.
        let slice = 1 << 30
        var ok = true
        output.withUnsafeMutableBufferPointer { out in
            var offset = 0
            while ok, offset < input.count {
                let n = min(slice, input.count - offset)
                var written: Int32 = 0
                ok = (sealing ? EVP_EncryptUpdate : EVP_DecryptUpdate)(context, out.baseAddress! + offset, &written,
                                                                      input.baseAddress!.assumingMemoryBound(to: UInt8.self) + offset, Int32(n)) == 1
                    && Int(written) == n
                offset += n
            }
        }
        guard ok else { throw .cryptoFailed("AES-256-GCM failed on a piece") }
    }

    /// Ends a sealed message: its tag.
    func finish() throws(BackupError) -> [UInt8] {
        precondition(sealing)
        var tail = [UInt8](repeating: 0, count: 16)
        var written: Int32 = 0
        var tag = [UInt8](repeating: 0, count: Self.tagLength)
        guard EVP_EncryptFinal_ex(context, &tail, &written) == 1,
              vein_gcm_get_tag(context, &tag, Int32(Self.tagLength)) == 1 else { throw .cryptoFailed("AES-256-GCM could not finish") }
        return tag
    }

    /// Ends an opened message: whether `tag` is the one its sealing made, so the message is whole and unaltered.
    func matches(tag: [UInt8]) -> Bool {
        precondition(!sealing)
        var tag = tag
        var tail = [UInt8](repeating: 0, count: 16)
        var written: Int32 = 0
        guard tag.count == Self.tagLength, vein_gcm_set_tag(context, &tag, Int32(Self.tagLength)) == 1 else { return false }
        return EVP_DecryptFinal_ex(context, &tail, &written) == 1
    }
}

/// PBKDF2-HMAC-SHA256, for keys derived from other secrets.
enum KeyDerivation {
    static func pbkdf2(secret: UnsafeRawBufferPointer, salt: [UInt8], iterations: Int32, into output: UnsafeMutableRawBufferPointer) -> Bool {
        salt.withUnsafeBufferPointer { salt in
            PKCS5_PBKDF2_HMAC(secret.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(secret.count),
                              salt.baseAddress, Int32(salt.count), iterations, EVP_sha256(), Int32(output.count),
                              output.baseAddress!.assumingMemoryBound(to: UInt8.self)) == 1
        }
    }
}
