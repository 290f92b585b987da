import Foundation

// libFuzzer entry points for the parsers that read what users and other programs give Vein: schema
// manifests, migration plans, expressions (parsed, type-checked, compiled and run on a small store),
// JSON (whole documents and the streaming reader), the change log's bytes (a damaged record) and what a
// backup folder or a sync relay holds (sealed headers, segment payloads, snapshot prefixes: an untrusted folder's files). `scripts/fuzz` compiles this file together with the
// engine's sources (`swiftc -sanitize=fuzzer,address`), so this is one module with the engine and can reach
// its internals. The target is chosen by VEIN_FUZZ_TARGET; a crash, a sanitizer report or a hang is a
// finding, a thrown error is the expected answer to bad input.

enum FuzzTarget: String, CaseIterable {
    case manifest, plan, expression, json, changes, backup

    static let current: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["VEIN_FUZZ_TARGET"] ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
            FileHandle.standardError.write(Data("VEIN_FUZZ_TARGET must be one of \(names)\n".utf8))
            exit(2)
        }
        return target
    }()
}

/// A small plaintext store in memory with the example schema and rows at the edges of every type, on which
/// fuzzed statements run. Writes are rolled back after each input, so every input sees the same rows.
final class ExpressionFixture {
    let context: ObjectContext

    init() throws {
        let manifest = try ManifestParser.parse(Self.manifestText, file: "fuzz.json5")
        let database = try Database(path: ":memory:", mode: .create, key: nil)
        for statement in SchemaDDL.createStatements(for: manifest) { try database.execute(statement) }
        context = try ObjectContext(database: database, manifest: manifest)
        let titles = ["", "Café", "Cafe\u{301}", "👍🏽", "a\r\nb", "x\u{0}y", "counter", "ß"]
        let views: [Int64] = [0, 1, -1, .max, .min, 42]
        let ratings: [Value?] = [nil, .double(-0.0), .double(1e308), .double(0.5)]
        var posts: [ModelObject] = []
        for (i, title) in titles.enumerated() {
            var values: [String: Value] = ["title": .string(title), "content": .string(String(repeating: "z", count: i)),
                                           "views": .int(views[i % views.count])]
            if let rating = ratings[i % ratings.count] { values["rating"] = rating }
            posts.append(try context.insert("Post", values))
        }
        for (i, post) in posts.enumerated() where i % 2 == 0 {
            let attachment = try context.insert("Attachment", ["name": .string("a\(i).png"), "fileType": .string("png"),
                                                               "sizeMiB": .double(Double(i) / 3)])
            try attachment.set("post", .string(post.id))
        }
        try context.save()
    }

    static let manifestText = """
        { vein: 1, app: "fuzz.vein", version: "1.0.0", models: {
            Post: { fields: { title: "string", content: "string", views: { type: "int", default: 0 }, rating: "double?",
                              publishedAt: "date?", tags: "json?", code: "uuid?" },
                    relationships: { attachments: { to: "Attachment", many: true, inverse: "post", deleteRule: "cascade" } } },
            Attachment: { fields: { name: "string", fileType: { type: "enum", values: ["png", "jpg", "gif", "swift"] },
                                    sizeMiB: "double", data: "data? lazy" },
                          relationships: { post: { to: "Post", inverse: "attachments" } } } } }
        """

    func run(_ source: String) {
        _ = try? QueryRunner(context: context).run(source)
        context.rollback()
    }
}

nonisolated(unsafe) var expressionFixture: ExpressionFixture?

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)
    switch FuzzTarget.current {
    case .manifest:
        // A manifest that parses also has Swift declarations or a refusal, never a trap.
        _ = try? ManifestParser.parse(text, file: "fuzz.json5").swiftDeclarations()
    case .plan:
        // Relative schema paths point into an empty directory: inline schemas are what gets parsed.
        _ = try? PlanParser.parse(text, file: "/nonexistent-vein-fuzz/plan.json5")
    case .expression:
        if expressionFixture == nil {
            do { expressionFixture = try ExpressionFixture() } catch { fatalError("fixture: \(error)") }
        }
        expressionFixture!.run(text)
    case .json:
        _ = try? JSONParser.parse(bytes)
        _ = try? JSONParser.parse(bytes, json5: true)
        fuzzStreamReader(bytes)
    case .changes:
        fuzzChangeBytes(bytes)
    case .backup:
        fuzzBackupFile(bytes)
    }
    return 0
}

/// Feeds the bytes through a pipe to the streaming reader, as `vein import` reads a file: as JSON Lines,
/// and as a sequence of values, with reads of a few bytes so that every refill boundary is tried.
func fuzzStreamReader(_ bytes: [UInt8]) {
    let chunkSize = 1 + (bytes.first.map(Int.init) ?? 0) % 16
    for asLines in [true, false] {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return }
        // Inputs are capped well under the pipe's 64 KiB buffer (-max_len), so the write never blocks.
        _ = bytes.withUnsafeBytes { write(fds[1], $0.baseAddress, min(bytes.count, 60_000)) }
        close(fds[1])
        let reader = JSONStreamReader(descriptor: fds[0], chunkSize: chunkSize)
        if asLines {
            while let line = try? reader.readLine() { _ = try? JSONParser.parse(line) }
        } else {
            while (try? reader.peek()) != nil {
                guard (try? reader.readValue()) != nil else { break }
            }
        }
        close(fds[0])
    }
}

/// The change log's bytes (docs/history.md#the-bytes-of-a-change), read as a part whose shape the first
/// byte chooses. What reads is written again and must read back the same: the reader accepts only what
/// the writer can write.
func fuzzChangeBytes(_ bytes: [UInt8]) {
    guard let shape = bytes.first else { return }
    let keyCount = 1 + Int(shape & 1), columnCount = Int(shape >> 1)
    var reader = ChangeBytesReader(Array(bytes.dropFirst()), keyCount: keyCount, columnCount: columnCount)
    guard let changes = try? reader.readAll() else { return }
    var writer = ChangeBytesWriter()
    for change in changes { writer.append(change) }
    var again = ChangeBytesReader(writer.bytes, keyCount: keyCount, columnCount: columnCount)
    guard let reread = try? again.readAll(), reread == changes else { fatalError("the change bytes do not read back the same") }
}

/// What a backup folder's files hold once read (docs/backup.md#sealed-files): the first byte chooses a
/// sealed header, a segment's payload or a snapshot's prefix. A header that reads is written again to the
/// same bytes: the reader accepts only what the writer writes.
func fuzzBackupFile(_ bytes: [UInt8]) {
    guard let kind = bytes.first else { return }
    let body = Array(bytes.dropFirst())
    switch kind % 5 {
    case 4:
        // A sync segment's payload: what its writer had merged, then its commits (docs/sync.md#segments).
        _ = try? SyncSegment(decoding: body, file: "segment.vseal")
    case 0:
        guard let header = try? SealedHeader(decoding: body) else { return }
        guard header.encoded == Array(body.prefix(SealedHeader.length)) else { fatalError("a sealed header does not write back the same") }
    case 1:
        _ = try? SegmentPayload.transactions(in: body, file: "fuzz.vseal")
    case 2:
        _ = body.withUnsafeBytes { try? SnapshotPrefix(decoding: $0, file: "snapshot.vseal") }
    default:
        // A whole file as a folder may hold it: read, its length checked, decrypted under a key; never a trap.
        // The header names the fuzz key (bytes 76 to 83), so the reads past the key check are reached.
        var file = body
        if file.count >= SealedHeader.length { file.replaceSubrange(76..<84, with: sealedFuzzKey.id) }
        guard FileManager.default.createFile(atPath: sealedFuzzPath, contents: Data(file)) else { return }
        _ = try? SealedFile.open(sealedFuzzPath, place: { _ in }, key: { _ in sealedFuzzKey }) { _ in }
    }
}

let sealedFuzzPath = FileManager.default.temporaryDirectory.path + "/vein-fuzz-\(getpid()).vseal"
let sealedFuzzKey = BackupKey(secret: SecretBytes(count: AESGCM.keyLength) { $0.initializeMemory(as: UInt8.self, repeating: 7) })
