import CVeinMemory
import Foundation
import Vein
import VeinCore

// The Swift side of bench/run: the model context doing what bench/c/context_bench.c does with prepared
// statements. Prints `vein <operation> <variant> <median ms>` lines in the C program's format.

let directory = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : NSTemporaryDirectory()
let repetitions = Int(ProcessInfo.processInfo.environment["VEIN_BENCH_REPETITIONS"] ?? "") ?? 5
/// Divides the row counts (for profiling runs under valgrind).
let scale = Int(ProcessInfo.processInfo.environment["VEIN_BENCH_SCALE"] ?? "") ?? 1
let manifest = try ManifestParser.parse("""
    { vein: 1, app: "bench", version: "1.0.0", models: { Row: { fields: {
      f0: "int", f1: "int", f2: "int", f3: "int", f4: "int", f5: "int", f6: "int", f7: "int", f8: "int", f9: "int" } } } }
    """, file: "bench")
let key = String(repeating: "5a", count: 32)
let keys = KeyOptions(environment: ["VEIN_KEY": key], keyring: nil)

/// VEIN_BENCH_PHASES=1: "<phase> begins" and "<phase> ends" on standard error around the phases a profiler
/// is pointed at (perf's `--control`), and the split of the relationship rows. Set here, before any
/// measurement runs: a global of main.swift is set only when the code reaches it.
let reportsPhases = ProcessInfo.processInfo.environment["VEIN_BENCH_PHASES"] != nil
func reportPhase(_ line: String) { if reportsPhases { FileHandle.standardError.write((line + "\n").data(using: .utf8)!) } }

/// VEIN_BENCH_CPU_TIME=1 measures the calling thread's CPU time instead of the wall clock: on a machine
/// shared with other work, wall-clock figures of the same binary move by up to 2x between runs.
let measuresCPUTime = ProcessInfo.processInfo.environment["VEIN_BENCH_CPU_TIME"] != nil

func now() -> UInt64 {
    guard measuresCPUTime else { return DispatchTime.now().uptimeNanoseconds }
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

func milliseconds(_ body: () throws -> Void) rethrows -> Double {
    let start = now()
    try body()
    return Double(now() - start) / 1_000_000
}

func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }

func heapInUse() -> Int { Int(vein_heap_in_use()) }

/// Prints what the rows `fetch` returns hold while they are held: the heap in use (malloc's own count)
/// after the fetch, less before it, as `vein memory OPERATION VARIANT MiB bytes-a-row`.
func printMemoryHeld<T>(_ operation: String, _ variant: String, _ fetch: () throws -> [T]) rethrows {
    let before = heapInUse()
    let rows = try fetch()
    let held = heapInUse() - before
    precondition(rows.count == 200_000 / scale)
    print("vein memory \(operation) \(variant) \(String(format: "%.1f", Double(held) / 1_048_576)) \(held / rows.count)")
    withExtendedLifetime(rows) {}
}

func makeStore(_ name: String, encrypted: Bool) throws -> Store {
    let path = directory + "/" + name
    FileSystem.removeDatabaseFiles(path)
    _ = try StoreCreator.create(at: path, manifest: manifest, protection: encrypted ? .encrypted(keys) : .plaintext)
    return try Store.open(path, keys: keys)
}

func insertRows(_ context: ObjectContext, count: Int) throws {
    var values = [Value?](repeating: nil, count: 10)
    for n in 0..<count {
        for f in 0..<10 { values[f] = .int(Int64(n &* 31 &+ f)) }
        try context.insert("Row", columnValues: values)
    }
    try context.save()
}

// Issue 11, item 6: the two table layouts a model can have, measured through the context
// (`VEIN_BENCH_LAYOUTS=1` runs only this): "rowid" (a rowid table and the unique index its `id TEXT
// PRIMARY KEY` implies) and "without-rowid" (the same table `WITHOUT ROWID`: the rows live in the primary
// key's b-tree, in id order). A store is made as `StoreCreator` makes it, then, for the second layout,
// its empty model tables are created again with `WITHOUT ROWID` appended (and their indexes with them).
// Prints `vein layout <operation> <variant> <layout> <median ms>`.
func rebuildWithoutRowID(_ store: Store) throws {
    let db = store.database
    for model in store.manifest.models {
        let table = SQL.quoteIdentifier(model.name)
        guard let create = try db.scalar("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(model.name)])?.string else { continue }
        let indexes = try db.rows("SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
                                  [.text(model.name)]).compactMap { $0[0].string }
        try db.execute("DROP TABLE \(table)")
        try db.execute(create + " WITHOUT ROWID")
        for index in indexes { try db.execute(index) }
    }
}

func measureLayouts() throws {
    let blogManifest = try ManifestParser.parse(String(contentsOfFile: "examples/blog.json5", encoding: .utf8), file: "blog.json5")
    let content = String(repeating: "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", count: 6).prefix(300)
    let blob = Data((0..<102_400).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) })
    let posts = 20_000 / scale, attachments = 1_000 / scale
    func layoutStore(_ name: String, _ manifest: SchemaManifest, encrypted: Bool, withoutRowID: Bool) throws -> Store {
        let path = directory + "/" + name
        FileSystem.removeDatabaseFiles(path)
        _ = try StoreCreator.create(at: path, manifest: manifest, protection: encrypted ? .encrypted(keys) : .plaintext)
        let store = try Store.open(path, keys: keys)
        if withoutRowID { try rebuildWithoutRowID(store) }
        return store
    }
    func report(_ operation: String, _ variant: String, _ layout: String, _ times: [Double]) {
        print("vein layout \(operation) \(variant) \(layout) \(String(format: "%.1f", median(times)))")
    }
    for encrypted in [true, false] {
        let variant = encrypted ? "encrypted" : "plaintext"
        // VEIN_BENCH_LAYOUTS_REVERSED=1 measures WITHOUT ROWID first (a change of load then biases the other way).
        let reversed = ProcessInfo.processInfo.environment["VEIN_BENCH_LAYOUTS_REVERSED"] != nil
        for withoutRowID in reversed ? [true, false] : [false, true] {
            let layout = withoutRowID ? "without-rowid" : "rowid"
            // The bench rows: 50,000 inserted in one save, 200,000 fetched into a fresh context.
            var times: [Double] = []
            for r in 0..<repetitions {
                let store = try layoutStore("layout-insert-\(variant)-\(layout)-\(r).vein", manifest, encrypted: encrypted, withoutRowID: withoutRowID)
                let context = ObjectContext(store: store)
                times.append(try milliseconds { try insertRows(context, count: 50_000 / scale) })
                FileSystem.removeDatabaseFiles(store.path)
            }
            report("rows-insert", variant, layout, times)
            let rows = try layoutStore("layout-fetch-\(variant)-\(layout).vein", manifest, encrypted: encrypted, withoutRowID: withoutRowID)
            try insertRows(ObjectContext(store: rows), count: 200_000 / scale)
            times = try (0..<repetitions).map { _ in
                let context = ObjectContext(store: rows)
                var count = 0
                let ms = try milliseconds { count = try context.fetch(ObjectFetch(model: "Row")).count }
                precondition(count == 200_000 / scale)
                return ms
            }
            report("rows-fetch", variant, layout, times)
            FileSystem.removeDatabaseFiles(rows.path)

            // The blog models: posts of 300 characters, attachments of 100 KB in the lazy `data` field.
            let blog = try layoutStore("layout-blog-\(variant)-\(layout).vein", blogManifest, encrypted: encrypted, withoutRowID: withoutRowID)
            var postIDs: [String] = []
            let setup = ObjectContext(store: blog)
            let insertPosts = try milliseconds {
                for n in 0..<posts {
                    postIDs.append(try setup.insert("Post", ["title": .string("post \(n)"), "content": .string(String(content))]).id)
                }
                try setup.save()
            }
            report("blog-insert-posts", variant, layout, [insertPosts])
            let insertAttachments = try milliseconds {
                for n in 0..<attachments {
                    try setup.insert("Attachment", ["name": .string("a\(n).png"), "fileType": .string("png"), "sizeMiB": .double(0.1),
                                                    "data": .data(blob), "post": .string(postIDs[n * (posts / attachments)])])
                }
                try setup.save()
            }
            report("blog-insert-blobs", variant, layout, [insertAttachments])
            times = try (0..<repetitions).map { _ in
                let context = ObjectContext(store: blog)
                var count = 0
                let ms = try milliseconds { count = try context.fetch(ObjectFetch(model: "Post")).count }
                precondition(count == posts)
                return ms
            }
            report("blog-fetch-posts", variant, layout, times)
            times = try (0..<repetitions).map { _ in
                let context = ObjectContext(store: blog)
                var count = 0
                let ms = try milliseconds { count = try context.fetch(ObjectFetch(model: "Attachment")).count }
                precondition(count == attachments)
                return ms
            }
            report("blog-fetch-lazy", variant, layout, times)
            times = try (0..<repetitions).map { _ in
                let context = ObjectContext(store: blog)
                let fetched = try context.fetch(ObjectFetch(model: "Attachment"))
                return try milliseconds {
                    for object in fetched { guard case .data(let d) = try object["data"], d.count == blob.count else { fatalError("blob") } }
                }
            }
            report("blog-read-blobs", variant, layout, times)
            times = try (0..<repetitions).map { _ in
                let context = ObjectContext(store: blog)
                return try milliseconds {
                    for id in postIDs.prefix(attachments) { _ = try context.object("Post", id: id) }
                }
            }
            report("blog-get-by-id", variant, layout, times)
            FileSystem.removeDatabaseFiles(blog.path)
        }
    }
}

if ProcessInfo.processInfo.environment["VEIN_BENCH_SHAPED_MEMORY"] != nil {
    try measureShapedMemory(posts: [20_000 / scale, 200_000 / scale])
    exit(0)
}

if ProcessInfo.processInfo.environment["VEIN_BENCH_HISTORY"] != nil {
    try measureHistoryCost()
    exit(0)
}
if ProcessInfo.processInfo.environment["VEIN_BENCH_LAYOUTS"] != nil {
    try measureLayouts()
    exit(0)
}

let onlyRelationships = ProcessInfo.processInfo.environment["VEIN_BENCH_ONLY_RELATIONSHIPS"] != nil
/// VEIN_BENCH_ONLY_FETCH=1: only the fetch rows (for measuring the fetch path).
let onlyFetch = ProcessInfo.processInfo.environment["VEIN_BENCH_ONLY_FETCH"] != nil
/// VEIN_BENCH_SKIP_TYPED=1: leave out the typed (VeinCore) rows.
let skipTyped = ProcessInfo.processInfo.environment["VEIN_BENCH_SKIP_TYPED"] != nil
for encrypted in [true, false] where !onlyRelationships {
    let variant = encrypted ? "encrypted" : "plaintext"
    var insertTimes: [Double] = []
    for r in 0..<(onlyFetch ? 0 : repetitions) {
        let context = ObjectContext(store: try makeStore("insert-\(variant)-\(r).vein", encrypted: encrypted))
        reportPhase("insert begins")
        insertTimes.append(try milliseconds { try insertRows(context, count: 50_000 / scale) })
        reportPhase("insert ends")
    }
    if !onlyFetch { print("vein insert \(variant) \(String(format: "%.1f", median(insertTimes)))") }
    // The same insert through VeinCore: `@Model` instances, `context.insert` each, one `save`.
    var typedInsertTimes: [Double] = []
    for r in 0..<(onlyFetch || skipTyped ? 0 : repetitions) {
        let context = typedContext(try makeStore("typed-insert-\(variant)-\(r).vein", encrypted: encrypted))
        reportPhase("typed-insert begins")
        typedInsertTimes.append(try milliseconds { try typedInsertRows(context, count: 50_000 / scale) })
        reportPhase("typed-insert ends")
    }
    if !onlyFetch && !skipTyped { print("vein typed-insert \(variant) \(String(format: "%.1f", median(typedInsertTimes)))") }

    let store = try makeStore("fetch-\(variant).vein", encrypted: encrypted)
    try insertRows(ObjectContext(store: store), count: 200_000 / scale)
    var fetchTimes: [Double] = []
    for _ in 0..<repetitions {
        // A fresh context each time: every row is materialized, none comes from the identity map.
        let context = ObjectContext(store: store)
        // The objects are dropped after the timed block, as the C program frees its array after timing.
        var objects: [ModelObject] = []
        fetchTimes.append(try milliseconds { objects = try context.fetch(ObjectFetch(model: "Row")) })
        precondition(objects.count == 200_000 / scale)
    }
    print("vein fetch \(variant) \(String(format: "%.1f", median(fetchTimes)))")
    // The same fetch through VeinCore, every field of every instance read (as the C program copies every column).
    var typedFetchTimes: [Double] = []
    for _ in 0..<(skipTyped ? 0 : repetitions) {
        let context = typedContext(store)
        var rows: (instances: [Row], copied: [FetchedRow]) = ([], [])
        reportPhase("typed-fetch begins")
        typedFetchTimes.append(try milliseconds { rows = try typedFetchRows(context) })
        reportPhase("typed-fetch ends")
        checkTypedRows(rows.copied, count: 200_000 / scale)
    }
    if !skipTyped { print("vein typed-fetch \(variant) \(String(format: "%.1f", median(typedFetchTimes)))") }
    // The same rows' identifiers only (`fetchIdentifiers`), which should cost far less than the objects.
    var identifierTimes: [Double] = []
    for _ in 0..<(skipTyped ? 0 : repetitions) {
        let context = typedContext(store)
        var ids: [PersistentIdentifier] = []
        identifierTimes.append(try milliseconds { ids = try context.fetchIdentifiers(VeinCore.FetchDescriptor<Row>()) })
        precondition(ids.count == 200_000 / scale)
    }
    if !skipTyped { print("vein typed-fetch-ids \(variant) \(String(format: "%.1f", median(identifierTimes)))") }
    // What the fetched objects hold while the app holds them, each in a fresh context: the engine's objects
    // alone, then the typed instances with theirs (the split between the engine's share and VeinCore's).
    // The C program's array of the same rows holds an id and ten ints a row.
    let engineContext = ObjectContext(store: store)
    try printMemoryHeld("fetch", variant) { try engineContext.fetch(ObjectFetch(model: "Row")) }
    if !skipTyped {
        let context = typedContext(store)
        try printMemoryHeld("typed-fetch", variant) { try context.fetch(VeinCore.FetchDescriptor<Row>()) }
    }
}
if onlyFetch { exit(0) }

// The migration bench: a lightweight stage (f0 renamed g0, a defaulted field added) over 1,000,000 rows,
// as the C program's hand-written table rebuild. Rows are filled with a prepared statement, untimed.
let migrateRows = Int(ProcessInfo.processInfo.environment["VEIN_BENCH_MIGRATE_ROWS"] ?? "") ?? 1_000_000
let nextSchema = """
    { vein: 1, app: "bench", version: "1.1.0", models: { Row: { fields: {
      g0: { type: "int", renamedFrom: "f0" }, f1: "int", f2: "int", f3: "int", f4: "int", f5: "int", f6: "int", f7: "int",
      f8: "int", f9: "int", extra: { type: "int", default: 0 } } } } }
    """
let plan = try PlanParser.parse("""
    { vein: 1, app: "bench", schemas: [\(manifest.canonicalText), \(nextSchema)], stages: [{ from: "1.0.0", to: "1.1.0" }] }
    """, file: "bench-plan")
var migrateTimes: [Double] = []
for r in 0..<(onlyRelationships ? 0 : min(repetitions, 3)) {
    let store = try makeStore("migrate-\(r).vein", encrypted: true)
    let insert = try store.database.makeStatement(
        "INSERT INTO \"Row\" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
    try store.database.transaction {
        for n in 0..<migrateRows {
            try insert.bind([.text(ULID.make().description)] + (0..<10).map { .integer(Int64(n &* 31 &+ $0)) })
            try insert.step()
            insert.reset()
        }
    }
    migrateTimes.append(try milliseconds { _ = try Migrator(plan: plan).run(on: store) })
}
if !onlyRelationships { print("vein migrate encrypted \(String(format: "%.1f", median(migrateTimes)))") }

// VEIN_BENCH_ONLY_CONTEXT=1: stop after the insert, fetch and migrate rows (for profiling the context).
if ProcessInfo.processInfo.environment["VEIN_BENCH_ONLY_CONTEXT"] != nil { exit(0) }

// The relationship benches (issue 11), as bench/c/context_bench.c's measure_relationships: through the
// context, encrypted, one measurement each.
let blog = try ManifestParser.parse("""
    { vein: 1, app: "bench", version: "1.0.0", models: {
      Post: { fields: { title: "string" }, relationships: { attachments: { to: "Attachment", many: true, inverse: "post", deleteRule: "cascade" } } },
      Attachment: { fields: { name: "string", sizeMiB: "double" }, relationships: { post: { to: "Post", inverse: "attachments" } } } } }
    """, file: "bench-blog")

func makeBlog(_ name: String) throws -> Store {
    let path = directory + "/" + name
    FileSystem.removeDatabaseFiles(path)
    _ = try StoreCreator.create(at: path, manifest: blog, protection: .encrypted(keys))
    return try Store.open(path, keys: keys)
}

let linkRows = Int(ProcessInfo.processInfo.environment["VEIN_BENCH_LINK_ROWS"] ?? "") ?? 1_000_000
// VEIN_BENCH_PHASES=1: the link's and the delete's phases on standard error, and `delete begins` and
// `delete ends` around the delete, for a profiler to start and stop at.
do {
    // link: one save per 1,000 attachments, each naming the post (the context keeps the post's list in step).
    let store = try makeBlog("link.vein")
    let setup = ObjectContext(store: store)
    let post = try setup.insert("Post", ["title": .string("p")]).id
    try setup.save()
    let context = ObjectContext(store: store)
    var batches: [Double] = []
    var linkInsertTime = 0.0
    let total = try milliseconds {
        for _ in 0..<(linkRows / 1_000) {
            batches.append(try milliseconds {
                linkInsertTime += try milliseconds {
                    for _ in 0..<1_000 {
                        try context.insert("Attachment", ["name": .string("a.png"), "sizeMiB": .double(1.5), "post": .string(post)])
                    }
                }
                try context.save()
            })
        }
    }
    let k = min(10, batches.count)
    reportPhase("link phases (insert calls, saves) ms: \(String(format: "%.1f", linkInsertTime)), \(String(format: "%.1f", total - linkInsertTime))")
    print("vein link encrypted \(String(format: "%.1f", total))")
    print("vein link-first1000 encrypted \(String(format: "%.2f", median(Array(batches.prefix(k)))))")
    print("vein link-last1000 encrypted \(String(format: "%.2f", median(Array(batches.suffix(k)))))")

    // delete: the first tenth of them, with their inverse upkeep (the post's list), one save.
    let deleter = ObjectContext(store: store)
    var phases: [Double] = []
    reportPhase("delete begins")
    let deleteTime = try milliseconds {
        var objects: [ModelObject] = []
        phases.append(try milliseconds { objects = try deleter.fetch(ObjectFetch(model: "Attachment", fetchLimit: linkRows / 10)) })
        phases.append(try milliseconds { for object in objects { try deleter.delete(object) } })
        phases.append(try milliseconds { try deleter.save() })
    }
    reportPhase("delete ends")
    reportPhase("delete phases (fetch, delete calls, save) ms: \(phases.map { String(format: "%.1f", $0) })")
    print("vein delete encrypted \(String(format: "%.1f", deleteTime))")
}
do {
    // cascade: 10,000 posts of 12 attachments each, deleted with them in one save.
    let store = try makeBlog("cascade.vein")
    let setup = ObjectContext(store: store)
    for _ in 0..<10_000 {
        let post = try setup.insert("Post", ["title": .string("p")]).id
        for _ in 0..<12 { try setup.insert("Attachment", ["name": .string("a.png"), "sizeMiB": .double(1.5), "post": .string(post)]) }
    }
    try setup.save()
    let context = ObjectContext(store: store)
    let time = try milliseconds {
        for post in try context.fetch(ObjectFetch(model: "Post")) { try context.delete(post) }
        try context.save()
    }
    let left = try ObjectContext(store: store).fetchCount(ObjectFetch(model: "Attachment"))
    precondition(left == 0)
    print("vein cascade encrypted \(String(format: "%.1f", time))")
}
