import CSQLCipher
import Foundation

/// `vein verify`: checks that a store is sound (docs/commands.md) without changing it.
///
/// Four checks: SQLite's own `integrity_check`; the stored manifest against its recorded SHA-256 and the
/// tables, columns and indexes it implies; every value against its field's type; and relationships (no
/// id pointing at a missing row, both sides of every inverse pair naming each other).
public enum StoreVerifier {
    public struct Check: Sendable {
        public let name: String
        public var problems: [String] = []
        public var isClean: Bool { problems.isEmpty }
    }

    public struct Report: Sendable {
        public var checks: [Check]
        public var isClean: Bool { checks.allSatisfy(\.isClean) }
    }

    /// How many sample ids a problem names.
    static let sampleCount = 5

    /// Everything is read in one read transaction: the checks compare tables with each other, and rows
    /// committed by a writer between two of them would look like a broken relationship.
    public static func verify(_ store: Store) throws -> Report {
        try store.transaction(.deferred) { try verifySnapshot(store) }
    }

    /// The report on a store that is too damaged to open (its schema or metadata pages cannot be read):
    /// the integrity check failed, and nothing else can be checked. Nil for an error that is not damage.
    package static func damagedBeforeChecks(_ error: Error, path: String) -> Report? {
        guard let error = error as? DatabaseError, error.isDamage else { return nil }
        let encrypted = (try? Store.isPlaintext(path)) != true
        return Report(checks: [Check(name: "integrity", problems: [unreadable(error, encrypted: encrypted)])])
    }

    private static func verifySnapshot(_ store: Store) throws -> Report {
        var report = Report(checks: [])
        let encrypted = store.encryption.isEncrypted
        let integrity = try integrity(store.database, encrypted: encrypted)
        report.checks.append(integrity)
        // On a damaged file the other checks would only fail on the same pages (SQLCipher keeps the
        // error of a page that failed its HMAC check): the damage is the report.
        guard integrity.isClean else { return report }
        let schema = try readingDamage("schema", encrypted: encrypted) { try schemaConformance(store) }
        report.checks.append(schema)
        // Value and relationship checks read the tables; on a store whose tables do not match the
        // schema they would only repeat those problems in a noisier form.
        if schema.isClean {
            report.checks.append(try readingDamage("values", encrypted: encrypted) { try values(store) })
            report.checks.append(try readingDamage("relationships", encrypted: encrypted) { try relationships(store) })
        }
        return report
    }

    /// A page that could not be read, said as what it means. Every page of an encrypted store carries an
    /// HMAC of its bytes: a page that fails it was damaged or changed by something without the key, which
    /// SQLCipher 3 reports only as "SQL logic error" (or "database disk image is malformed").
    static func unreadable(_ error: DatabaseError, encrypted: Bool) -> String {
        encrypted ? "a page failed its authentication check: the file is damaged or was changed"
            : "the file is damaged: SQLite could not read it (\(error.message))"
    }

    static func integrity(_ db: Database, encrypted: Bool) throws -> Check {
        var check = Check(name: "integrity")
        do {
            for row in try db.rows("PRAGMA integrity_check") {
                // SQLite 3.15 puts several findings in one row, under a "*** in database main ***" line.
                guard let text = row.first?.string, text != "ok" else { continue }
                check.problems += text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("*** in database") }
            }
        } catch let error as DatabaseError where !error.isBusy && ![SQLITE_IOERR, SQLITE_NOMEM].contains(error.code) {
            // integrity_check is fixed SQL: any other failure is the file's. A damaged page of an
            // encrypted store fails its HMAC check, which SQLCipher 3 reports as "SQL logic error" here.
            check.problems.append(unreadable(error, encrypted: encrypted))
        }
        if encrypted { check.problems = pagesFailingAuthentication(check.problems) }
        // One damaged page of an encrypted store makes every page after it unreadable to the check: a
        // hundred lines would bury the first, which is the damage.
        if check.problems.count > sampleCount {
            let more = check.problems.count - sampleCount
            check.problems = Array(check.problems.prefix(sampleCount)) + ["and \(Phrase.count(more, "more finding")) of SQLite's integrity_check"]
        }
        return check
    }

    /// integrity_check's "Page 253: unable to get the page. error code=1" is, in an encrypted store, a page
    /// that failed its HMAC check: such findings become one, in those terms, naming the pages.
    static func pagesFailingAuthentication(_ findings: [String]) -> [String] {
        var pages: [Int] = [], others: [String] = []
        for finding in findings {
            let parts = finding.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[1] == " unable to get the page. error code=1", parts[0].hasPrefix("Page "),
               let page = Int(parts[0].dropFirst("Page ".count)) {
                pages.append(page)
            } else {
                others.append(finding)
            }
        }
        guard !pages.isEmpty else { return findings }
        pages.sort()
        let list = pages.prefix(sampleCount).map(String.init).joined(separator: ", ") + (pages.count > sampleCount ? ", …" : "")
        let named = pages.count == 1 ? "page \(pages[0]) failed its" : "\(pages.count) pages (\(list)) failed their"
        return ["\(named) authentication check: the file is damaged or was changed"] + others
    }

    /// The check's own result, or, when a damaged page stops it, that damage as its one problem.
    static func readingDamage(_ name: String, encrypted: Bool, _ body: () throws -> Check) throws -> Check {
        do {
            return try body()
        } catch let error as DatabaseError where error.isDamage {
            return Check(name: name, problems: [unreadable(error, encrypted: encrypted)])
        }
    }

    static func schemaConformance(_ store: Store) throws -> Check {
        var check = Check(name: "schema")
        let db = store.database, manifest = store.manifest, meta = store.meta
        if manifest.sha256 != meta.manifestSHA256 {
            check.problems.append("_vein_meta.manifestSHA256 does not match the stored manifest")
        }
        if manifest.canonicalText != meta.manifest {
            check.problems.append("_vein_meta.manifest is not in canonical form")
        }
        if manifest.version.description != meta.schemaVersion || manifest.app != meta.app {
            check.problems.append("_vein_meta.schemaVersion or app disagrees with the stored manifest")
        }
        check.problems += try tableProblems(db, manifest, format: store.format)
        return check
    }

    /// Every way the tables and indexes differ from what `manifest` lays out; empty when they match.
    /// `format`: the store's own (a format-2 store is checked against its own layout).
    static func tableProblems(_ db: Database, _ manifest: SchemaManifest, format: StoreFormat = .current) throws -> [String] {
        var check = Check(name: "tables")
        // SQLite keeps each CREATE statement's text verbatim, so comparing it with the DDL the schema
        // implies checks every column, type, constraint, default and index column at once.
        var stored: [String: String] = [:]
        for row in try db.rows("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL") {
            if let name = row[0].string, let sql = row[1].string { stored[name] = sql }
        }
        let tables = Set(try db.rows("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap { $0[0].string })
        var expectedIndexes = Set<String>()
        for model in manifest.models {
            guard let sql = stored[model.name] else {
                check.problems.append("table \(model.name) is missing")
                continue
            }
            if sql != SchemaDDL.createTable(model, tableName: model.name, in: manifest, format: format) {
                let table = SQL.quoteIdentifier(model.name)
                // PRAGMA table_info: cid, name, type, notnull, dflt_value, pk
                let actual = try db.rows("PRAGMA main.table_info(\(table))").map { $0[1].string ?? "" }
                let expected = [format.keyColumn] + SchemaDDL.storedColumns(model, in: manifest)
                let detail = actual == expected ? "its column types, constraints or defaults differ"
                    : "it has columns [\(actual.joined(separator: ", "))], the schema expects [\(expected.joined(separator: ", "))]"
                check.problems.append("table \(model.name) does not match the schema: \(detail)")
            }
            for index in SchemaDDL.indexes(for: model, in: manifest) {
                expectedIndexes.insert(index.name)
                if stored[index.name] == nil {
                    check.problems.append("index \(index.name) is missing")
                } else if stored[index.name] != index.sql(table: model.name) {
                    check.problems.append("index \(index.name) is not the one the schema declares (its columns or uniqueness differ)")
                }
            }
        }
        var linkTables: [String] = []
        for statement in RelationshipStorage.all(in: manifest).flatMap(\.linkTableStatements) {
            // CREATE TABLE "name" (…) / CREATE INDEX "name" ON …: the name is the first quoted identifier.
            let name = statement.split(separator: "\"", maxSplits: 2).dropFirst().first.map(String.init) ?? ""
            if statement.hasPrefix("CREATE TABLE") { linkTables.append(name) } else { expectedIndexes.insert(name) }
            if stored[name] == nil {
                check.problems.append("\(statement.hasPrefix("CREATE TABLE") ? "table" : "index") \(name) is missing")
            } else if stored[name] != statement {
                check.problems.append("\(statement.hasPrefix("CREATE TABLE") ? "table" : "index") \(name) does not match the schema")
            }
        }
        let indexNames = try db.rows("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").compactMap { $0[0].string }
        for name in indexNames.sorted() where !expectedIndexes.contains(name) {
            check.problems.append("index \(name) is not part of the schema")
        }
        let changeLog = try ChangeLogSchema.problems(in: db, manifest: manifest)
        check.problems += changeLog
        let known = Set(manifest.models.map(\.name) + linkTables + ["_vein_meta", format.migrationsTable] + ChangeLogSchema.tableNames
                        + [StoreMeta.syncReplicasTable, StoreMeta.syncStampsTable, StoreMeta.syncShadowTable])
        for table in tables.sorted() where !known.contains(table) && !table.hasPrefix("sqlite_") {
            check.problems.append("table \(table) is not part of the schema")
        }
        return check.problems
    }

    static func tablesMatch(_ db: Database, manifest: SchemaManifest) throws -> Bool {
        try tableProblems(db, manifest).isEmpty
    }

    static func values(_ store: Store) throws -> Check {
        var check = Check(name: "values")
        let db = store.database
        for model in store.manifest.models {
            let table = SQL.quoteIdentifier(model.name)
            var badIDs: [String] = []
            let ids = try db.makeStatement("SELECT \(StoreFormat.key) FROM \(table)")
            while try ids.step() {
                let id = ids.string(0)
                if ULID(id) == nil { badIDs.append(id) }
            }
            report(&check, badIDs) { "\(model.name).\(store.format.keyColumn): \(Phrase.count($0, "id", "are")) not \(Phrase.noun($0, "a ULID", plural: "ULIDs"))" }
            // One query per column, each cell judged by the rule fetch and export apply: verify reports
            // exactly the cells they refuse.
            for field in model.fields {
                let codec = field.codec
                let column = SQL.quoteIdentifier(field.name)
                var wrongStorage: [String] = [], wrongValue: [String] = []
                let rows = try db.makeStatement("SELECT \(StoreFormat.key), \(column) FROM \(table) WHERE \(column) IS NOT NULL ORDER BY \(StoreFormat.key)")
                while try rows.step() {
                    guard let mismatch = codec.mismatch(rows, 1) else { continue }
                    if mismatch.isWrongStorage { wrongStorage.append(rows.string(0)) } else { wrongValue.append(rows.string(0)) }
                }
                report(&check, wrongStorage) { "\(model.name).\(field.name): \(Phrase.count($0, "value", "are")) not of type \(field.type.rawValue)" }
                report(&check, wrongValue) {
                    "\(model.name).\(field.name): \(Phrase.count($0, "value", "are")) not "
                        + Phrase.noun($0, "a valid \(field.type.rawValue) value", plural: "valid \(field.type.rawValue) values")
                }
            }
        }
        return check
    }

    static func relationships(_ store: Store) throws -> Check {
        var check = Check(name: "relationships")
        for finding in try relationshipFindings(store.database, store.manifest) {
            report(&check, count: finding.count, samples: finding.ids) { "\(finding.model).\(finding.field): " + finding.problem($0) }
        }
        return check
    }

    /// One kind of relationship problem: the rows of `model` whose `field` has it.
    struct RelationshipFinding {
        let model: String
        let field: String
        /// How many rows have it, and the first `sampleCount` of their ids (however many there are, a
        /// finding takes the same memory).
        let count: Int
        let ids: [String]
        /// The problem, given the number of rows that have it: "3 rows point to Post rows that do not exist".
        let describe: @Sendable (Int) -> String
        func problem(_ count: Int) -> String { describe(count) }
    }

    /// Ids naming no row, links of rows that are gone, to-one pairs that disagree, and list positions the
    /// context would never write (a member without one, two members at one), over any connection
    /// holding `manifest`'s tables (a store, or a migration before it commits). Set-based: a few statements
    /// per relationship, through the indexes. A to-many kept through its inverse's column, and both sides
    /// of a many-to-many, share one storage, so they cannot disagree.
    static func relationshipFindings(_ db: Database, _ manifest: SchemaManifest) throws -> [RelationshipFinding] {
        var findings: [RelationshipFinding] = []
        func add(_ model: String, _ field: String, _ sql: String, _ describe: @escaping @Sendable (Int) -> String) throws {
            let rows = try db.cachedStatement(sql)
            defer { rows.reset() }
            var count = 0, ids: [String] = []
            while try rows.step() {
                count += 1
                if ids.count < sampleCount { ids.append(rows.string(0)) }
            }
            if count > 0 { findings.append(RelationshipFinding(model: model, field: field, count: count, ids: ids, describe: describe)) }
        }
        let q = SQL.quoteIdentifier
        for storage in RelationshipStorage.all(in: manifest) {
            let owner = q(storage.model), target = q(storage.target), column = q(storage.name), name = storage.target
            switch storage.kind {
            case .column:
                try add(storage.model, storage.name, """
                    SELECT \(StoreFormat.key) FROM \(owner) WHERE \(column) IS NOT NULL \
                    AND NOT EXISTS (SELECT 1 FROM \(target) AS "_t" WHERE "_t".\(StoreFormat.key) = \(owner).\(column)) ORDER BY \(StoreFormat.key)
                    """) { "\(Phrase.rows($0, "point to")) \(name) rows that do not exist" }
                // A to-one pair: each side names the row that names it back.
                if let inverse = storage.relationship.inverse, let back = manifest.model(named: storage.target)?.relationship(named: inverse),
                   !back.isToMany {
                    let inverseName = "\(storage.target).\(inverse)"
                    try add(storage.model, storage.name, """
                        SELECT \(StoreFormat.key) FROM \(owner) WHERE \(column) IS NOT NULL \
                        AND EXISTS (SELECT 1 FROM \(target) AS "_t" WHERE "_t".\(StoreFormat.key) = \(owner).\(column)) \
                        AND NOT EXISTS (SELECT 1 FROM \(target) AS "_t" WHERE "_t".\(StoreFormat.key) = \(owner).\(column) AND "_t".\(q(inverse)) = \(owner).\(StoreFormat.key)) \
                        ORDER BY \(StoreFormat.key)
                        """) { "\(Phrase.rows($0, "are")) not listed back by \(inverseName)" }
                }
            case .reverseColumn:
                // Positions as the context writes them (MAX + 1 from 1): every member of an existing owner
                // has a whole number from 1. Gaps left by unlinks are fine, and so are members at one
                // position (two replicas appending at once, ordered by id) and a position left on a row in
                // no list (a sync detaches a member without touching its position): docs/store-format.md.
                let member = q(storage.inverseColumn!), position = q(storage.positionColumn!)
                try add(storage.model, storage.name, """
                    SELECT DISTINCT "_m".\(member) FROM \(target) AS "_m" WHERE "_m".\(member) IS NOT NULL \
                    AND ("_m".\(position) IS NULL OR typeof("_m".\(position)) <> 'integer' OR "_m".\(position) < 1) \
                    AND EXISTS (SELECT 1 FROM \(owner) AS "_o" WHERE "_o".\(StoreFormat.key) = "_m".\(member)) ORDER BY 1
                    """) { "\(Phrase.rows($0, "list")) members without a position (\(storage.positionColumn!) NULL or not a whole number from 1)" }
            case .linkTable:
                guard storage.isCanonical, let link = storage.linkTable.map(q) else { continue }
                // The canonical side's order, as the context writes it: whole numbers from 1 (members at one
                // position, as a sync's merge leaves them, are ordered by id).
                try add(storage.model, storage.name, """
                    SELECT DISTINCT "owner" FROM \(link) WHERE typeof("position") <> 'integer' OR "position" < 1 ORDER BY 1
                    """) { "\(Phrase.rows($0, "list")) members without a position (not a whole number from 1)" }
                try add(storage.model, storage.name, """
                    SELECT DISTINCT "owner" FROM \(link) \
                    WHERE NOT EXISTS (SELECT 1 FROM \(target) AS "_t" WHERE "_t".\(StoreFormat.key) = \(link)."target") ORDER BY "owner"
                    """) { "\(Phrase.rows($0, "point to")) \(name) rows that do not exist" }
                let ownerName = storage.model
                let (model, field) = storage.relationship.inverse.map { (storage.target, $0) } ?? (storage.model, storage.name)
                let column = storage.relationship.inverse == nil ? "\"owner\"" : "\"target\""
                try add(model, field, """
                    SELECT DISTINCT \(column) FROM \(link) \
                    WHERE NOT EXISTS (SELECT 1 FROM \(owner) AS "_o" WHERE "_o".\(StoreFormat.key) = \(link)."owner") ORDER BY 1
                    """) { storage.relationship.inverse == nil ? "\(Phrase.rows($0)) that do not exist hold links" : "\(Phrase.rows($0, "point to")) \(ownerName) rows that do not exist" }
            }
        }
        return findings
    }

    /// Adds "what: N rows … (id, id, …)" when `ids` is not empty, `what` made from their number.
    private static func report(_ check: inout Check, _ ids: [String], _ what: (Int) -> String) {
        report(&check, count: ids.count, samples: Array(ids.prefix(sampleCount)), what)
    }

    /// Adds "what: N rows … (id, id, …)" for `count` rows, of which `samples` are the first.
    private static func report(_ check: inout Check, count: Int, samples: [String], _ what: (Int) -> String) {
        guard count > 0 else { return }
        check.problems.append(what(count) + " (\(samples.joined(separator: ", "))\(count > samples.count ? ", …" : ""))")
    }
}
