import Foundation

/// A continuous backup's folder (docs/backup.md#the-folder): a marker naming the backup and its store, and
/// one folder per generation, each a snapshot and the numbered segments after it.
///
///     DEST/vein-backup                          "vein-backup 1", the backup's id, the store's id
///     DEST/00000001/snapshot.vseal
///     DEST/00000001/segment-00000001.vseal …
///
/// Names carry only numbers. Every file but the marker is sealed (`SealedFile`) and says in its header
/// where it belongs, so a file renamed, copied or moved into the wrong place is refused, not trusted.
package struct BackupFolder: Sendable {
    package let path: String
    /// A random id made with the folder: the keyring finds a backup's own key by it.
    package let backupID: String
    package let storeID: String
    /// Checked but not yet made (its first pass makes it).
    var isPlanned = false

    static let markerName = "vein-backup"
    static let markerFirstLine = "vein-backup 1"
    static let snapshotName = "snapshot.vseal"

    /// The backup in the folder at `path`.
    package static func open(_ path: String) throws -> BackupFolder {
        var info = stat()
        guard stat(path, &info) == 0 else { throw FileError.notFound(path) }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw BackupError.notABackup(path, reason: "it is not a folder") }
        let marker = path + "/" + markerName
        guard FileSystem.fileExists(marker) else { throw BackupError.notABackup(path, reason: "it has no \(markerName) file") }
        let lines = try FileInput.readText(marker).split(separator: "\n").map(String.init)
        guard lines.count == 3, lines[0] == markerFirstLine, lines[1].hasPrefix("backup "), lines[2].hasPrefix("store ") else {
            throw BackupError.notABackup(path, reason: "its \(markerName) file is not one Vein wrote")
        }
        return BackupFolder(path: path, backupID: String(lines[1].dropFirst(7)), storeID: String(lines[2].dropFirst(6)), isPlanned: false)
    }

    /// The backup of the store `storeID` that a first pass makes at `path`: a new folder, or an empty one.
    /// Checked now, made by `makeIfPlanned`.
    static func planned(_ path: String, storeID: String) throws -> BackupFolder {
        var info = stat()
        if stat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else { throw BackupError.notABackup(path, reason: "it is not a folder") }
            let entries: [String]
            do { entries = try FileManager.default.contentsOfDirectory(atPath: path) } catch {
                throw FileError.unreadable(path, reason: String(describing: error))
            }
            guard entries.allSatisfy({ $0.hasPrefix(".") }) else {
                throw BackupError.notABackup(path, reason: "it holds other files (a continuous backup needs a new or empty folder)")
            }
        }
        return BackupFolder(path: path, backupID: ULID.make().description, storeID: storeID, isPlanned: true)
    }

    /// Makes a planned folder: the folder (mode 0700) when it does not exist, and its marker, which appears
    /// whole and never replaces another's.
    func makeIfPlanned() throws {
        guard isPlanned else { return }
        if FileSystem.fileExists(path + "/" + Self.markerName) {
            // Made by an earlier pass of this run (`--watch`), or by another process that began first.
            guard try Self.open(path).backupID == backupID else { throw BackupError.busy(path) }
            return
        }
        if !FileSystem.fileExists(path) {
            guard mkdir(path, 0o700) == 0 || errno == EEXIST else { throw FileSystem.writeError(path, errno, creating: true) }
        }
        let text = "\(Self.markerFirstLine)\nbackup \(backupID)\nstore \(storeID)\n"
        let staged = try StagedFile(target: path + "/" + Self.markerName, tag: StagedFile.Tag.writing.rawValue, mode: 0o644, placement: .create)
        defer { staged.discard() }
        try staged.write(Array(text.utf8))
        try staged.commit()
    }

    /// The generations in the folder, oldest first.
    func generations() throws -> [UInt32] {
        try FileManager.default.contentsOfDirectory(atPath: path).compactMap { name in
            name.count == 8 && name.allSatisfy(\.isASCII) ? UInt32(name) : nil
        }.sorted()
    }

    /// The generations a reader uses: those with a snapshot. One without is being begun (the newest, a pass
    /// killed before its snapshot) or was being removed (an older one), and the next pass finishes the work.
    func completeGenerations() throws -> [UInt32] {
        try generations().filter { FileSystem.fileExists(snapshotPath($0)) }
    }

    /// The digest of a generation's last file: what the next generation's snapshot names.
    func lastFileDigest(of generation: UInt32) throws -> [UInt8] {
        let last = try segments(of: generation).last.map { segmentPath(generation, $0) } ?? snapshotPath(generation)
        return try SealedFile.digest(of: last)
    }

    func generationPath(_ generation: UInt32) -> String { path + "/" + Self.number(UInt64(generation)) }
    func snapshotPath(_ generation: UInt32) -> String { generationPath(generation) + "/" + Self.snapshotName }
    func segmentPath(_ generation: UInt32, _ sequence: UInt64) -> String {
        generationPath(generation) + "/segment-" + Self.number(sequence) + ".vseal"
    }

    /// The segment numbers in a generation's folder, in order (what is there, gaps included).
    func segments(of generation: UInt32) throws -> [UInt64] {
        try FileManager.default.contentsOfDirectory(atPath: generationPath(generation)).compactMap { name -> UInt64? in
            guard name.hasPrefix("segment-"), name.hasSuffix(".vseal") else { return nil }
            return UInt64(name.dropFirst(8).dropLast(6))
        }.sorted()
    }

    /// Makes a generation's folder.
    func makeGeneration(_ generation: UInt32) throws {
        let directory = generationPath(generation)
        guard mkdir(directory, 0o700) == 0 || errno == EEXIST else { throw FileSystem.writeError(directory, errno, creating: true) }
        try FileSystem.syncDirectory(containing: directory)
    }

    /// Removes a generation's files and folder (pruning); segments first, newest first, so that what is
    /// left after an interruption is still a snapshot and a prefix of its chain.
    func removeGeneration(_ generation: UInt32) throws {
        for sequence in try segments(of: generation).reversed() { _ = unlink(segmentPath(generation, sequence)) }
        _ = unlink(snapshotPath(generation))
        StagedFile.removeLeftovers(in: generationPath(generation), tag: StagedFile.Tag.sealing.rawValue)
        // A folder that still holds files Vein did not write stays, with them: readers pass over a
        // generation without its snapshot.
        guard rmdir(generationPath(generation)) == 0 || errno == ENOTEMPTY || errno == EEXIST else {
            throw FileSystem.writeError(generationPath(generation), errno)
        }
    }

    /// Holds the folder's writer lock (a `flock` on its `.lock` file) until `unlock`: two backups never
    /// write one chain.
    func lockForWriting() throws -> FileSystem.DirectoryLock {
        guard let lock = try FileSystem.tryLock(path + "/.lock") else { throw BackupError.busy(path) }
        return lock
    }

    static func number(_ value: UInt64) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, 8 - digits.count)) + digits
    }
}
