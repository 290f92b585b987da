import Vein

/// The one place where typed errors become messages and exit statuses. Engine errors describe themselves
/// (their `description`, which names no command-line option: ARCHITECTURE.md I18); here each kind gets its exit status, and a
/// hint that names the commands and options that help.
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

    /// Where an error is reported: a command, which ends with it, or an interactive REPL session, which
    /// goes on with its pending changes (so the remedy differs: a conflict is not cured by saving again).
    enum Setting {
        case command, session
    }

    static func report(_ error: Error, in setting: Setting = .command) -> Report {
        switch error {
        case let e as CommandFailure:
            return Report(messages: e.message.isEmpty ? [] : [e.message], hint: e.hint, exitCode: e.exitCode)
        case let e as MigrationError:
            return migration(e)
        case let e as KeyRotationError:
            switch e {
            case .plaintextStore:
                return Report(messages: [e.description], hint: "make an encrypted copy with 'vein encrypt'", exitCode: .dataError)
            case .sourceNotWritable:
                return Report(messages: [e.description],
                              hint: "name where the new key goes: --to-keyring, --to-key-file FILE or --to-passphrase", exitCode: .usage)
            case .notFinished(_, let pending, _):
                return Report(messages: [e.description],
                              hint: pending == nil ? nil : "keep the pending key: every open tries it, and the next 'vein key rotate' makes it current",
                              exitCode: .ioError)
            case .oldKeyNotRetired(let source, _, _):
                let hint = source == .keyring
                    ? "the keyring's old key is marked as moved: the next command that finds it no longer opens the store retires it"
                    : "the old key no longer opens the store: mark it retired by hand (rename the key file to FILE.retired-DATE)"
                return Report(messages: [e.description], hint: hint, exitCode: .ioError)
            }
        case is ExportSelectionError:
            // Worded by its options: the engine's message names none.
            return Report(messages: ["--where needs exactly one --model (the condition is written against one model's fields)"],
                          hint: "see 'vein help export'", exitCode: .usage)
        case let e as ImportError:
            let hint: String? = switch e.remedy {
            case .migrateFirst: "migrate the store (vein migrate) or the data to the same version first"
            case .upsert: "pass --upsert to replace records that have the same id"
            case nil: nil
            }
            return Report(messages: e.lines, hint: hint, exitCode: .dataError)
        case let e as JSONSyntaxError:
            return Report(messages: ["line \(e.line), column \(e.column): \(e.message)"], hint: nil, exitCode: .dataError)
        case let e as UsageError:
            let help = e.command.isEmpty ? "vein help" : "vein help \(e.command)"
            return Report(messages: [e.message], hint: "see '\(help)'", exitCode: .usage)
        case let e as ScriptError:
            var inner = report(e.underlying, in: setting)
            if inner.messages.isEmpty { inner.messages = [e.place] } else { inner.messages[0] = "\(e.place): " + inner.messages[0] }
            // A line of a script that vein refuses (`.sql` that writes, an unknown dot-command, a write under
            // --read-only) is bad input, as a statement that does not parse is: 65, never a usage error.
            if inner.exitCode == .usage { inner.exitCode = .dataError }
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
            return context(e, in: setting)
        case let e as DamagedValueError:
            return Report(messages: [e.description],
                          hint: "the store was changed outside Vein; 'vein verify' lists every such value: "
                              + "restore a backup, or correct the value with the tool that wrote it",
                          exitCode: .dataError)
        case let e as EvaluationError:
            return Report(messages: [e.description], hint: nil, exitCode: .dataError)
        case let e as ManifestError:
            return Report(messages: e.lines, hint: nil, exitCode: .dataError)
        case let e as ChangeLogError:
            switch e {
            case .notKept:
                return Report(messages: [e.message], hint: "start one with 'vein history enable STORE' (or create the store with --history)",
                              exitCode: .dataError)
            case .alreadyKept:
                return Report(messages: [e.message], hint: nil, exitCode: .dataError)
            case .damaged:
                return Report(messages: [e.message], hint: "'vein verify STORE' checks the log's tables and triggers", exitCode: .dataError)
            case .expired:
                return Report(messages: [e.message], hint: "read the whole log again ('vein history STORE'), and go on from its last token",
                              exitCode: .dataError)
            }
        case let e as BackupError:
            return backup(e)
        case let e as SyncError:
            return sync(e)
        case let e as SwiftDeclarationError:
            return Report(messages: [e.description], hint: "'vein schema STORE --json' prints the manifest itself", exitCode: .dataError)
        case let e as FileError:
            return file(e)
        case let e as WriteGuardError:
            switch e {
            case .wouldDestroy:
                return Report(messages: [e.description], hint: "nothing was written; choose another file", exitCode: .cannotCreate)
            case .mayHoldData:
                return Report(messages: [e.description], hint: "nothing was written; add --force to replace it, or choose another file",
                              exitCode: .cannotCreate)
            case .leftover(_, let companion, _):
                return Report(messages: [e.description], hint: "nothing was written; move \(companion) away (it may hold the last commits of a "
                              + "store that was moved or deleted), or choose another path", exitCode: .cannotCreate)
            }
        case let e as StoreError:
            return store(e, in: setting)
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

    static func context(_ e: ContextError, in setting: Setting = .command) -> Report {
        if case .conflict = e {
            // The session's pending changes were computed from the row as it was: saving them again fails
            // the same way, so they go first.
            let hint = setting == .session
                ? "'rollback', then repeat your statements: they will read the row as it is now"
                : "run the command again: it will read the row as it is now"
            return Report(messages: [e.description], hint: hint, exitCode: .busy)
        }
        if case .constraintViolation(let message) = e, let violation = UniqueViolation(message: message) {
            // In a session the refused change stays pending, and saving it again fails the same way.
            let hint = setting == .session
                ? "the change is still pending: 'rollback', or give the \(violation.model) other values and 'save' again"
                : "give the \(violation.model) other values, or update the \(violation.model) that has them"
            return Report(messages: [e.description], hint: hint, exitCode: .dataError)
        }
        if e == .interrupted { return Report(messages: [e.description], hint: nil, exitCode: .failure) }
        return Report(messages: [e.description], hint: nil, exitCode: .dataError)
    }

    static func file(_ e: FileError) -> Report {
        switch e {
        case .notFound, .unreadable: return Report(messages: [e.description], exitCode: .noInput)
        case .notText, .tooLarge: return Report(messages: [e.description], exitCode: .dataError)
        case .cannotWrite, .alreadyExists: return Report(messages: [e.description], exitCode: .cannotCreate)
        case .writeFailed: return Report(messages: [e.description], exitCode: .ioError)
        // A closed output pipe ends the command quietly (docs/commands.md).
        case .outputClosed: return Report(messages: [], exitCode: .ok)
        }
    }

    /// What a store of the previous format needs, with the command that does it.
    static func upgradeNeeded(_ path: String, found: Int) -> String {
        "\(path) is in store format \(found), which this vein reads but does not write: "
            + "run 'vein upgrade \(path)' to convert it to format \(VeinVersion.storeFormat)"
    }

    static func store(_ e: StoreError, in setting: Setting = .command) -> Report {
        let message = [e.description]
        switch e {
        case .notFound(let path):
            return Report(messages: message, hint: "create one with 'vein create \(path) --schema MANIFEST'", exitCode: .noInput)
        case .alreadyExists:
            return Report(messages: message, hint: "vein never overwrites a store; choose another path", exitCode: .cannotCreate)
        case .cannotCreate:
            return Report(messages: message, exitCode: .cannotCreate)
        case .wrongKey:
            return Report(messages: message,
                          hint: "check which key source is used: --key-file, --key-env, --passphrase, VEIN_KEY, then the keyring",
                          exitCode: .permission)
        case .notAVeinStore, .textFile:
            return Report(messages: message, exitCode: .dataError)
        case .unsupportedFormat:
            return Report(messages: message, hint: "upgrade vein to open it", exitCode: .dataError)
        case .obsoleteFormat:
            return Report(messages: message,
                          hint: "recreate the store with this vein (export it with the vein that wrote it, then import)", exitCode: .dataError)
        case .needsUpgrade(let path, let found):
            return Report(messages: [upgradeNeeded(path, found: found)],
                          hint: "commands that only read (info, query, export, verify) work on it as it is", exitCode: .dataError)
        case .busy:
            return Report(messages: message, hint: "try again when the other vein or app has finished", exitCode: .busy)
        case .schemaChanged:
            // A session stays on the schema it opened: it has to be started again.
            let hint = setting == .session
                ? "quit and start 'vein repl' again: it will use the store's new schema (changes not saved are lost)"
                : "run the command again: it will use the store's new schema"
            return Report(messages: message, hint: hint, exitCode: .busy)
        case .readOnly:
            return Report(messages: message,
                          hint: "commands that only read (info, export, backup, a query that reads) still work", exitCode: .ioError)
        case .permissionDenied:
            return Report(messages: message, exitCode: .ioError)
        case .notAFile:
            return Report(messages: message, exitCode: .noInput)
        case .closed:
            return Report(messages: message, exitCode: .ioError)
        }
    }

    static func key(_ e: KeyError) -> Report {
        let message = [e.description]
        let kind: KeyError
        if case .unusableKey(_, let problem) = e { kind = problem } else { kind = e }
        switch kind {
        case .unusableKey:
            return Report(messages: message, exitCode: .dataError)
        case .mistypedRawKey:
            return Report(messages: message,
                          hint: "check it for a lost or extra digit; a passphrase must not be only hex digits", exitCode: .dataError)
        case .weakPassphrase:
            return Report(messages: message, hint: "choose a longer passphrase, or accept this one with --weak-passphrase", exitCode: .dataError)
        case .noKeySource:
            return Report(messages: message, hint: keySourcesHint, exitCode: .unavailable)
        case .keyRetired(_, _, let movedTo):
            let hint = switch movedTo {
            case .passphrasePrompt: "use --passphrase"
            case .keyFile(let path): "use --key-file \(path)"
            default: keySourcesHint
            }
            // 'vein key status' needs the store's key too: the hint says so, or it would send the person round.
            return Report(messages: message, hint: hint + "; with it, 'vein key status' lists the retired key, which opens copies made before the rotation",
                          exitCode: .unavailable)
        case .retiredKeyOpens(let store, let retiredAt):
            return Report(messages: message,
                          hint: "give it a key of its own: VEIN_KEY=\"$(secret-tool lookup store '\(store)' state retired retired '\(retiredAt)')\" "
                              + "vein key rotate '\(store)' --to-keyring",
                          exitCode: .unavailable)
        case .keyKeptForAnotherPath(let store, let other):
            return Report(messages: message,
                          hint: "keep a key under the new path: VEIN_KEY=\"$(secret-tool lookup store '\(other)' state current)\" "
                              + "vein key rotate '\(store)' --to-keyring; or, while \(other) is there, make a copy with its own key: "
                              + "vein backup '\(other)' NEWPATH",
                          exitCode: .unavailable)
        case .keyFileRetired:
            return Report(messages: message, hint: "give the store's new key source; the retired key opens copies and backups made before the rotation",
                          exitCode: .noInput)
        case .keyFileTooOpen(let path, _):
            return Report(messages: message, hint: "restrict it with 'chmod 600 \(path)'", exitCode: .configuration)
        case .keyFileUnreadable:
            return Report(messages: message, exitCode: .noInput)
        case .keyFileExists:
            return Report(messages: message, exitCode: .cannotCreate)
        case .environmentVariableUnset(let name):
            // Worded by its option: the engine's message names none.
            return Report(messages: ["environment variable \(name) (named by --key-env) is not set or empty"], exitCode: .unavailable)
        case .emptyKey, .keyContainsNUL, .passphraseMismatch:
            return Report(messages: message, exitCode: .dataError)
        case .keyringFailed:
            return Report(messages: message,
                          hint: "vein never takes a failed keyring read as 'no key'; unlock the keyring or give another key source",
                          exitCode: .ioError)
        case .keyringLocked:
            return Report(messages: message,
                          hint: "unlock it (your desktop's keyring prompt, or 'secret-tool search --unlock store PATH') and try again, "
                              + "or give another key source", exitCode: .ioError)
        case .keyringUnavailable:
            return Report(messages: message, hint: keySourcesHint, exitCode: .unavailable)
        case .passphraseUnavailable:
            return Report(messages: message, exitCode: .unavailable)
        }
    }

    static func migration(_ e: MigrationError) -> Report {
        switch e {
        case .unhandledData:
            return Report(messages: e.lines, hint: e.remedies.joined(separator: "; "), exitCode: .dataError)
        case .appMismatch:
            return Report(messages: e.lines, hint: "use the plan that belongs with this store", exitCode: .dataError)
        case .versionNotInPlan(_, _, let newer):
            return Report(messages: e.lines,
                          hint: newer ? "this plan is older than the store; use the current plan" : "add the store's version to the plan's schemas",
                          exitCode: .dataError)
        case .schemaDiffers(let version):
            return Report(messages: e.lines,
                          hint: "compare 'vein schema STORE' with the plan's \(version) schema; a schema must not change once stores use it",
                          exitCode: .dataError)
        case .changedPlan:
            return Report(messages: e.lines,
                          hint: "restore the stage as it was, or pass --accept-changed-plan if the edit does not change what it did",
                          exitCode: .dataError)
        // Worded by the option that names the target: the engine's messages name none.
        case .targetNotInPlan(let target, let versions):
            return Report(messages: ["--to \(target) is not a version of the plan (\(versions.joined(separator: ", ")))"], hint: nil, exitCode: .usage)
        case .backwards(let store, let target):
            return Report(messages: ["the store is at \(store), past --to \(target): migrations only go forward"],
                          hint: "restore a backup taken before the migration to go back", exitCode: .usage)
        }
    }

    /// Continuous backups: damage names its file and stops there (65); a key that does not fit is 77.
    static func backup(_ e: BackupError) -> Report {
        let message = [e.message]
        switch e {
        case .damaged:
            return Report(messages: message, hint: "nothing past it was applied; restore from an earlier generation (--at), or take a new "
                          + "backup into an empty folder", exitCode: .dataError)
        case .wrongKey:
            return Report(messages: message, hint: "give the backup's key with --backup-key-file, or the key the store had when it was "
                          + "sealed (--key-file, --key-env, --passphrase)", exitCode: .permission)
        case .noKey:
            return Report(messages: message, hint: "give --backup-key-file FILE (a plaintext store's backups need one), or the store's "
                          + "key with --key-file, --key-env or --passphrase", exitCode: .unavailable)
        case .notABackup, .anotherStore:
            return Report(messages: message, hint: "a continuous backup needs a folder of its own: name a new or empty one", exitCode: .dataError)
        case .noChangeLog:
            return Report(messages: message, hint: "start one with 'vein history enable STORE'", exitCode: .dataError)
        case .busy:
            return Report(messages: message, hint: "one run at a time writes a backup; try again when it has finished", exitCode: .busy)
        case .notABackupKey, .nothingBefore, .empty:
            return Report(messages: message, hint: nil, exitCode: .dataError)
        case .wrongPassphrase:
            return Report(messages: message, hint: nil, exitCode: .permission)
        case .cryptoFailed, .snapshotNotTaken:
            return Report(messages: message, hint: nil, exitCode: .failure)
        }
    }

    /// Sync: what the relay holds or the store records is data (65); another run is busy (75).
    static func sync(_ e: SyncError) -> Report {
        let message = [e.message]
        switch e {
        case .notSynced:
            return Report(messages: message, hint: "make it a replica with 'vein sync init STORE --relay RELAY --sync-key-file FILE' "
                          + "(the first) or 'vein sync join NEW …' (the others)", exitCode: .dataError)
        case .alreadySynced:
            return Report(messages: message, hint: "'vein sync STORE' syncs it; 'vein sync status STORE' shows the sync", exitCode: .dataError)
        case .relayInUse:
            return Report(messages: message, hint: "join that sync with 'vein sync join NEW --relay RELAY --sync-key-file FILE', or name a new "
                          + "or empty folder (or another database)", exitCode: .dataError)
        case .notARelay, .otherRelay:
            return Report(messages: message, hint: "a relay is the folder or PostgreSQL database 'vein sync init' made; name a new or empty "
                          + "one to begin a sync", exitCode: .dataError)
        case .relayUnavailable:
            return Report(messages: message, hint: "nothing was sent or merged past what this run reports; run it again when the relay is "
                          + "back (or the PostgreSQL client library, Debian's libpq5, is installed)", exitCode: .unavailable)
        case .relayRefused(_, _, let full):
            return Report(messages: message, hint: full ? "nothing more was sent; free space on the relay's server and sync again"
                          : "check that the relay's role may read and write its vein_ tables", exitCode: .ioError)
        case .noChangeLog:
            return Report(messages: message, hint: "start one with 'vein history enable STORE'", exitCode: .dataError)
        case .migrationUnfinished:
            return Report(messages: message, hint: "finish it with 'vein migrate STORE --plan PLAN' (the plan that migrated it)",
                          exitCode: .configuration)
        case .unsendable:
            return Report(messages: message, hint: "make a new replica from the relay with 'vein sync join' and carry the change over by hand",
                          exitCode: .dataError)
        case .schemaDiffers:
            return Report(messages: message, hint: "nothing of that segment was merged; migrate the replicas with one plan, each with "
                          + "'vein migrate STORE --plan PLAN'", exitCode: .dataError)
        case .mustMigrate:
            return Report(messages: message, hint: "nothing was sent or merged, and this store's changes stay in it: migrate it with the plan "
                          + "the others used ('vein migrate STORE --plan PLAN'), which carries them across", exitCode: .configuration)
        case .migrationDiffers:
            return Report(messages: message, hint: "migrate every replica with one plan; this store is migrated but not synced (make a new "
                          + "replica with 'vein sync join' and carry its changes over by hand)", exitCode: .dataError)
        case .snapshotTaken:
            return Report(messages: message, hint: "run the same command again: it starts from what that replica published", exitCode: .busy)
        case .prunedPast:
            return Report(messages: message, hint: "nothing past them was merged: this store is behind what every known replica had merged "
                          + "(a copy put back, or a replica the relay did not know); make a new replica with 'vein sync join' and use it in "
                          + "this one's place", exitCode: .dataError)
        case .conflictsOpen:
            return Report(messages: message, hint: "nothing was migrated; resolve them first ('vein sync conflicts STORE')", exitCode: .dataError)
        case .forgotten:
            return Report(messages: message, hint: "nothing was sent or merged; make a new replica with 'vein sync join' (this store's "
                          + "commits not yet sent are not in it)", exitCode: .dataError)
        case .noSuchReplica(_, _, let own):
            return Report(messages: message, hint: own ? "forget this replica from another one, once it will not sync again"
                                                       : "'vein sync status STORE' lists the replicas", exitCode: .usage)
        case .relayWentBack:
            return Report(messages: message, hint: "the relay was restored from an older copy of itself, or its files were removed: nothing was "
                          + "merged; put the relay's newer files back", exitCode: .dataError)
        case .cannotMerge:
            return Report(messages: message, hint: "nothing of that segment was merged", exitCode: .dataError)
        case .noConflict:
            return Report(messages: message, hint: "'vein sync conflicts STORE' lists the rows set aside", exitCode: .noInput)
        case .busy:
            return Report(messages: message, hint: "one run at a time pushes a replica; try again when it has finished", exitCode: .busy)
        case .keyRotated:
            return Report(messages: message, hint: "nothing sealed under the new key was read; give this replica the new key with "
                          + "'vein sync rotate-key STORE --sync-key-file FILE' (FILE: the key file the rotation made, or its "
                          + "'vein sync export-key')", exitCode: .permission)
        case .rotatedElsewhere:
            return Report(messages: message, hint: "take that key with 'vein sync rotate-key STORE --sync-key-file FILE', then rotate again if "
                          + "you still want to", exitCode: .busy)
        case .notTheNewKey:
            return Report(messages: message, hint: "name the key file the rotation made (or a new FILE, to rotate to a new key)", exitCode: .dataError)
        case .keyringUnreachable:
            return Report(messages: message, hint: "give the sync key with --sync-key-file FILE (init makes FILE when it does not exist)",
                          exitCode: .unavailable)
        case .noSyncKey:
            return Report(messages: message, hint: "give it with --sync-key-file: a copy of the key file the sync began with, or what "
                          + "'vein sync export-key' wrote on one of its replicas", exitCode: .unavailable)
        case .notASyncKey:
            return Report(messages: message, hint: nil, exitCode: .dataError)
        case .damaged:
            return Report(messages: message, hint: "nothing past it was merged; the replica that wrote it can make a new replica "
                          + "('vein sync join') if it was altered", exitCode: .dataError)
        case .wrongKey:
            return Report(messages: message, hint: "give the sync key every replica of this sync shares (--sync-key-file at init or join)",
                          exitCode: .permission)
        case .wrongPassphrase:
            return Report(messages: message, hint: nil, exitCode: .permission)
        }
    }
}
