import CVeinMemory
import Foundation

/// Key material is kept out of core dumps (ARCHITECTURE.md I11).
///
/// Copies of a key live where Vein cannot wipe them (Swift strings, SQLCipher's own buffers), so the
/// guarantee is process-wide: from the first moment a key is read or made, the process is non-dumpable
/// (a crash leaves no core holding the key, and other processes of the same user cannot read its memory).
/// Buffers Vein reads keys into are wiped once parsed.
package enum KeyMemory {
    private static let protected: Bool = vein_keep_out_of_core_dumps() == 0

    /// Makes the process non-dumpable; cheap after the first call. Called before any key is read or made.
    @discardableResult
    package static func keepOutOfCoreDumps() -> Bool { protected }

    /// Zeros `data`'s bytes in place (key file contents once parsed).
    static func wipe(_ data: inout Data) {
        data.withUnsafeMutableBytes { vein_wipe($0.baseAddress, $0.count) }
    }

    static func wipe(_ buffer: UnsafeMutableRawBufferPointer) {
        vein_wipe(buffer.baseAddress, buffer.count)
    }
}
