/// What the storage layer asks of the layers above it, so that it never names them (scripts/check-layers):
/// a key it can hand to SQLCipher, and SQL functions written in Swift whose failures come back as typed
/// errors.

/// A secret SQLCipher can open a file with. `CipherKey` (Keys) is the one kind Vein makes.
package protocol DatabaseKey: Sendable {
    /// Calls `body` with the key as `sqlite3_key` takes it, in a buffer zeroed afterwards.
    func withSQLCipherKey<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
}

/// Scalar SQL functions written in Swift, registered together on a connection by the layer that compiles
/// SQL calling them (`Database.install`).
package protocol SQLFunctionGroup {
    /// Registers every function of the group on the connection `handle`; throws SQLite's error when one
    /// cannot be (out of memory): a statement calling it would otherwise fail later with "no such function".
    static func register(on handle: OpaquePointer) throws(DatabaseError)
    /// The typed error a function of the group raised, read back from the statement's error message; nil
    /// for a message that is not one of the group's.
    static func error(fromMessage message: String) -> (any Error)?
}

extension Database {
    /// Registers `group`'s functions on this connection, once: registering a function again while a
    /// statement that calls it is prepared would fail. After it, a statement that fails in one of them
    /// throws the group's typed error from `Statement.step`.
    /// A group that fails to register is not recorded, so the next `install` tries it again.
    package func install(_ group: any SQLFunctionGroup.Type) throws(DatabaseError) {
        guard !functionGroups.contains(where: { $0 == group }) else { return }
        try group.register(on: handle)
        functionGroups.append(group)
    }
}
