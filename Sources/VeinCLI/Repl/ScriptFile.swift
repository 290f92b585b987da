import Foundation
import Vein

/// `.read FILE`: a regular file or a pipe (a directory or a device is refused, as everywhere vein reads
/// a file), streamed line by line with the statement limit of standard input. Reads nest up to
/// `ReplSession.maxReadDepth` files, and a file already being read is refused at once: a script that reads
/// itself, or two that read each other, would never end (it ended in a stack overflow).
enum ScriptFile {
    static func read(_ name: String, in session: ReplSession) throws {
        guard session.readChain.count < ReplSession.maxReadDepth else {
            throw CommandFailure(".read nests \(ReplSession.maxReadDepth) files deep at most (\(chain(session.readChain.map(\.name) + [name])))",
                                 exitCode: .dataError)
        }
        let lines: ScriptLines
        let identity: ReplSession.ReadFile
        if name == "-" {
            lines = .standardInput
            identity = ReplSession.ReadFile(name: name, device: 0, inode: 0)
        } else {
            let descriptor = try FileInput.openForStreaming(name)
            var info = stat()
            guard fstat(descriptor, &info) == 0 else {
                let reason = String(cString: strerror(errno))
                close(descriptor)
                throw FileError.unreadable(name, reason: reason)
            }
            identity = ReplSession.ReadFile(name: name, device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
            if (info.st_mode & S_IFMT) == S_IFREG, session.readChain.contains(where: { $0.device == identity.device && $0.inode == identity.inode }) {
                close(descriptor)
                throw CommandFailure("\(name) is being read already (\(chain(session.readChain.map(\.name) + [name]))): a script that reads itself never ends",
                                     exitCode: .dataError)
            }
            lines = ScriptLines(descriptor: descriptor)
        }
        session.readChain.append(identity)
        defer { session.readChain.removeLast() }
        try ScriptRunner.run(lines, in: session, origin: name)
    }

    /// `a.vein → b.vein → a.vein`, the middle left out of a long chain.
    static func chain(_ names: [String]) -> String {
        guard names.count > 6 else { return names.joined(separator: " → ") }
        return (names.prefix(3) + ["…"] + names.suffix(2)).joined(separator: " → ")
    }
}
