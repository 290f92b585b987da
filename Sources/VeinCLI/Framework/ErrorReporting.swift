import Vein

/// The one place where typed errors become messages and exit statuses.
enum ErrorReporting {
    /// The key sources a user can give, for every "no key" message.
    static let keySourcesHint =
        "give a key with --key-file FILE, --key-env VAR, the VEIN_KEY environment variable or --passphrase, "
        + "or keep it in the Secret Service keyring (gnome-keyring, KeePassXC)"

    struct Report {
        var messages: [String]
        var hint: String?
        var exitCode: ExitCode
    }

    static func report(_ error: Error) -> Report {
        switch error {
        case let e as CommandFailure:
            return Report(messages: e.message.isEmpty ? [] : [e.message], hint: e.hint, exitCode: e.exitCode)
        case let e as MigrationError:
            return migration(e)
        case let e as KeyRotationError:
            switch e {
            case .plaintextStore(let path):
                return Report(messages: ["\(path) is not encrypted; there is no key to rotate"],
                              hint: "make an encrypted copy with 'vein encrypt'", exitCode: .dataError)
            case .sourceNotWritable(let source):
                return Report(messages: ["the key comes from the \(source), where vein cannot write a new one"],
                              hint: "name where the new key goes: --to-keyring, --to-key-file FILE or --to-passphrase", exitCode: .usage)
            }
        case is ExportSelectionError:
            return Report(messages: ["--where needs exactly one --model (the condition is written against one model's fields)"],
                          hint: "see 'vein help export'", exitCode: .usage)
        case let e as ImportError:
            var messages = ["import from \(e.file) refused; nothing was written"] + e.problems.map { "  \($0)" }
            if e.problems.count >= StoreImporter.problemLimit { messages.append("  (stopped after \(StoreImporter.problemLimit) problems)") }
            let hint: String? = switch e.remedy {
            case .migrateFirst: "migrate the store (vein migrate) or the data to the same version first"
            case .upsert: "pass --upsert to replace records that have the same id"
            case nil: nil
            }
            return Report(messages: messages, hint: hint, exitCode: .dataError)
        case let e as JSONSyntaxError:
            return Report(messages: ["line \(e.line), column \(e.column): \(e.message)"], hint: nil, exitCode: .dataError)
        case let e as UsageError:
            let help = e.command.isEmpty ? "vein help" : "vein help \(e.command)"
            return Report(messages: [e.message], hint: "see '\(help)'", exitCode: .usage)
        case let e as ScriptError:
            var inner = report(e.underlying)
            if inner.messages.isEmpty { inner.messages = [e.place] } else { inner.messages[0] = "\(e.place): " + inner.messages[0] }
            return inner
        case let e as ReadOnlySQLError:
            switch e {
            case .writes:
                return Report(messages: [".sql runs only statements that read (SELECT, WITH, VALUES, EXPLAIN); this one would write or is not one of them"],
                              hint: "change data with insert, update and delete, then save", exitCode: .usage)
            case .severalStatements:
                return Report(messages: [".sql runs one statement at a time"], hint: nil, exitCode: .usage)
            }
        case let e as ExpressionError:
            return Report(messages: [e.rendered], hint: nil, exitCode: .dataError)
        case let e as ContextError:
            return context(e)
        case let e as DamagedValueError:
            return Report(messages: ["\(e.model) \(e.id): \(e.field) holds \(e.found), which is not a value of type \(e.expected)"],
                          hint: "the store was changed outside Vein; 'vein verify' lists every such value: "
                              + "restore a backup, or correct the value with the tool that wrote it",
                          exitCode: .dataError)
        case let e as EvaluationError:
            return Report(messages: [e.description], hint: nil, exitCode: .dataError)
        case let e as ManifestError:
            return Report(messages: e.lines, hint: nil, exitCode: .dataError)
        case let e as FileError:
            return file(e)
        case let e as StoreError:
            return store(e)
        case let e as KeyError:
            return key(e)
        case let e as DatabaseError:
            if e.isBusy {
                return Report(messages: ["the store is busy: another process holds its lock"],
                              hint: "try again when the other vein or app has finished", exitCode: .busy)
            }
            if e.isDamage {
                return Report(messages: ["the store is damaged: \(e.message)"],
                              hint: "'vein verify STORE' reports the damage; restore the store from a backup (made with 'vein backup')",
                              exitCode: .dataError)
            }
            if e.code == 8 {  // SQLITE_READONLY: the file, its directory or its file system refused a write
                return Report(messages: ["the store is read-only: \(e.message)"], hint: nil, exitCode: .ioError)
            }
            let ioCodes: Set<Int32> = [10, 13, 14]  // SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN
            return Report(messages: ["SQLite: \(e.message)"], hint: nil,
                          exitCode: ioCodes.contains(e.code) ? .ioError : .failure)
        default:
            return Report(messages: ["\(error)"], hint: nil, exitCode: .failure)
        }
    }

    static func context(_ e: ContextError) -> Report {
        let message: String
        switch e {
        case .conflict(let m, let id):
            return Report(messages: ["another process changed \(m) \(id) after it was read; nothing was saved"],
                          hint: "run the command again: it will read the row as it is now", exitCode: .busy)
        case .unknownModel(let m): message = "no model '\(m)'"
        case .unknownField(let m, let f, let s): message = "no field '\(f)' in \(m)" + (s.map { " (did you mean '\($0)'?)" } ?? "")
        case .typeMismatch(let m, let f, let expected, let found): message = "\(m).\(f) takes \(expected), not \(found)"
        case .missingValue(let m, let f): message = "\(m).\(f) needs a value (it is not optional and has no default)"
        case .danglingReference(let m, let f, let id): message = "\(m).\(f): no row with id \(id)"
        case .deleteDenied(let m, let id, let r, let n): message = "cannot delete \(m) \(id): its \(r) still names \(n) row\(n == 1 ? "" : "s") (delete rule deny)"
        case .constraintViolation(let text): message = "the store refused the change: \(text)"
        case .objectDeleted(let m, let id): message = "\(m) \(id) is deleted"
        case .contextClosed(let m, let id): message = "\(m) \(id) belongs to a context that no longer exists"
        }
        return Report(messages: [message], hint: nil, exitCode: .dataError)
    }

    static func file(_ e: FileError) -> Report {
        switch e {
        case .notFound, .unreadable: return Report(messages: [e.description], exitCode: .noInput)
        case .notText: return Report(messages: [e.description], exitCode: .dataError)
        case .cannotWrite, .alreadyExists: return Report(messages: [e.description], exitCode: .cannotCreate)
        case .writeFailed: return Report(messages: [e.description], exitCode: .ioError)
        // A closed output pipe ends the command quietly (SPEC §8).
        case .outputClosed: return Report(messages: [], exitCode: .ok)
        }
    }

    static func store(_ e: StoreError) -> Report {
        switch e {
        case .notFound(let path):
            return Report(messages: ["no such store: \(path)"],
                          hint: "create one with 'vein create \(path) --schema MANIFEST'", exitCode: .noInput)
        case .alreadyExists(let path):
            return Report(messages: ["\(path) already exists"],
                          hint: "vein never overwrites a store; choose another path", exitCode: .cannotCreate)
        case .cannotCreate(let path, let reason):
            return Report(messages: ["cannot create \(path): \(reason)"], exitCode: .cannotCreate)
        case .wrongKey(let path, let source):
            return Report(messages: ["cannot decrypt \(path)\(source.map { " with \(keyPhrase($0))" } ?? ""): wrong key or not a Vein store"],
                          hint: "check which key source is used: --key-file, --key-env, --passphrase, VEIN_KEY, then the keyring",
                          exitCode: .permission)
        case .notAVeinStore(let path, let reason):
            return Report(messages: ["\(path) is not a Vein store: \(reason)"], exitCode: .dataError)
        case .unsupportedFormat(let path, let found):
            return Report(messages: ["\(path) uses store format \(found), newer than this vein (format \(VeinVersion.storeFormat))"],
                          hint: "upgrade vein to open it", exitCode: .dataError)
        case .obsoleteFormat(let path, let found):
            return Report(messages: ["\(path) uses store format \(found), older than this vein (format \(VeinVersion.storeFormat)); "
                                     + "no released vein wrote it, so it cannot be opened"],
                          hint: "recreate the store with this vein (export it with the vein that wrote it, then import)", exitCode: .dataError)
        case .busy(let path):
            return Report(messages: ["\(path) is busy: another process holds its lock"],
                          hint: "try again when the other vein or app has finished", exitCode: .busy)
        case .schemaChanged(let path, let from, let to):
            return Report(messages: ["another process migrated \(path) from schema \(from) to \(to) while this command ran; nothing was written"],
                          hint: "run the command again: it will use the store's new schema", exitCode: .busy)
        case .readOnly(let path, let reason):
            return Report(messages: ["\(path) is read-only: cannot write (\(reason))"],
                          hint: "commands that only read (info, export, backup, a query that reads) still work", exitCode: .ioError)
        case .permissionDenied(let path):
            return Report(messages: ["cannot open \(path): permission denied"], exitCode: .ioError)
        case .notAFile(let path, let reason):
            return Report(messages: ["cannot open \(path): \(reason)"], exitCode: .noInput)
        }
    }

    /// How a message names a key by its source: "the key from key file k.key", "the passphrase given".
    static func keyPhrase(_ source: KeySource) -> String {
        switch source {
        case .passphrasePrompt: return "the passphrase given"
        case .keyring: return "the key in the keyring"
        default: return "the key from \(source)"
        }
    }

    static func key(_ e: KeyError, source: KeySource? = nil) -> Report {
        let theKey = source.map(keyPhrase) ?? "the key"
        switch e {
        case .unusableKey(let source, let problem):
            return key(problem, source: source)
        case .mistypedRawKey(let digits):
            return Report(messages: [theKey + (digits.map { " looks like a raw key with \($0) hex digits (a raw key has 64)" }
                                               ?? " is written as a raw key (x'…') but is not 64 hex digits")],
                          hint: "check it for a lost or extra digit; a passphrase must not be only hex digits", exitCode: .dataError)
        case .weakPassphrase(let characters):
            return Report(messages: ["\(theKey) has \(characters) character\(characters == 1 ? "" : "s"); "
                                     + "a new store's passphrase needs at least \(CipherKey.minimumPassphraseLength)"],
                          hint: "choose a longer passphrase, or accept this one with --weak-passphrase", exitCode: .dataError)
        case .noKeySource(let store, let problem):
            let detail = problem.map { " (\($0))" } ?? ""
            return Report(messages: ["no key for \(store)\(detail)"], hint: keySourcesHint, exitCode: .unavailable)
        case .keyFileTooOpen(let path, let mode):
            return Report(messages: ["key file \(path) is accessible by others (mode \(String(mode, radix: 8)))"],
                          hint: "restrict it with 'chmod 600 \(path)'", exitCode: .configuration)
        case .keyFileUnreadable(let path, let reason):
            return Report(messages: ["cannot read key file \(path): \(reason)"], exitCode: .noInput)
        case .keyFileExists(let path):
            return Report(messages: ["key file \(path) already exists"], exitCode: .cannotCreate)
        case .environmentVariableUnset(let name):
            return Report(messages: ["environment variable \(name) (named by --key-env) is not set or empty"],
                          exitCode: .unavailable)
        case .emptyKey:
            return Report(messages: ["\(theKey) is empty"], exitCode: .dataError)
        case .keyContainsNUL:
            return Report(messages: ["\(theKey) contains a NUL character, which SQLCipher cannot use"], exitCode: .dataError)
        case .keyringFailed(let reason):
            return Report(messages: ["the keyring failed: \(reason)"],
                          hint: "vein never takes a failed keyring read as 'no key'; unlock the keyring or give another key source",
                          exitCode: .ioError)
        case .keyringLocked:
            return Report(messages: ["the keyring is locked"],
                          hint: "unlock it (your desktop's keyring prompt, or 'secret-tool search --unlock store PATH') and try again, "
                              + "or give another key source", exitCode: .ioError)
        case .keyringUnavailable(let reason):
            return Report(messages: ["the Secret Service is not available: \(reason)"], hint: keySourcesHint,
                          exitCode: .unavailable)
        case .passphraseMismatch:
            return Report(messages: ["the passphrases do not match"], exitCode: .dataError)
        case .passphraseUnavailable(let reason):
            return Report(messages: ["cannot read a passphrase: \(reason)"], exitCode: .unavailable)
        }
    }

    static func migration(_ e: MigrationError) -> Report {
        switch e {
        case .unhandledData(let stage, let findings):
            let messages = ["stage \(stage) would lose or could not carry data; nothing was changed"] + findings.map { "  \($0)" }
            let remedies = findings.map(\.remedy).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
            return Report(messages: messages, hint: remedies.joined(separator: "; "), exitCode: .dataError)
        case .appMismatch(let plan, let store):
            return Report(messages: ["the plan is for app \"\(plan)\", the store belongs to \"\(store)\""],
                          hint: "use the plan that belongs with this store", exitCode: .dataError)
        case .versionNotInPlan(let version, let versions, let newer):
            return Report(messages: [newer ? "the store is at \(version), newer than the plan's last version \(versions.last ?? "")"
                                           : "the store is at \(version), which the plan does not list (\(versions.joined(separator: ", ")))"],
                          hint: newer ? "this plan is older than the store; use the current plan" : "add the store's version to the plan's schemas",
                          exitCode: .dataError)
        case .schemaDiffers(let version):
            return Report(messages: ["the store's schema at \(version) is not the plan's schema \(version)"],
                          hint: "compare 'vein schema STORE' with the plan's \(version) schema; a schema must not change once stores use it",
                          exitCode: .dataError)
        case .changedPlan(let stages):
            return Report(messages: ["applied stage\(stages.count == 1 ? "" : "s") \(stages.joined(separator: ", ")) changed in the plan since \(stages.count == 1 ? "it" : "they") ran"],
                          hint: "restore the stage as it was, or pass --accept-changed-plan if the edit does not change what it did",
                          exitCode: .dataError)
        case .targetNotInPlan(let target, let versions):
            return Report(messages: ["--to \(target) is not a version of the plan (\(versions.joined(separator: ", ")))"], hint: nil, exitCode: .usage)
        case .backwards(let store, let target):
            return Report(messages: ["the store is at \(store), past --to \(target): migrations only go forward"],
                          hint: "restore a backup taken before the migration to go back", exitCode: .usage)
        }
    }
}
