extension Store {
    /// Gives `database`, a connection of this store, its change recorder when the store keeps a change log
    /// and the connection may write (docs/history.md): every commit through it is then recorded.
    func recordChanges(on database: Database) throws {
        guard connectionMode == .readWrite, !refusesWrites, format == .current, try ChangeLogSchema.isKept(in: database) else { return }
        guard let replica = try ChangeLogSchema.replica(in: database) else {
            throw ChangeLogError.damaged("_vein_meta has no \(ChangeLogSchema.replicaKey)")
        }
        try ChangeRecorder.install(on: database, manifest: manifest, replica: replica).author = changeAuthor
    }
}
