// What an app that imports VeinCore only names of the engine: the errors it catches, the key options a
// custom key provider returns, JSON field values, delete rules, what `explain` returns, and the engine's
// object under each instance (generated code names it as `VeinCore.ModelObject`). Nothing generic
// (`Store`, `Value`, the field types): an app that works with the engine's dynamic API imports Vein.
@_exported import enum Vein.DeleteRule
@_exported import enum Vein.KeySource
@_exported import struct Vein.KeyOptions
@_exported import enum Vein.StoreError
@_exported import enum Vein.ContextError
@_exported import enum Vein.ReadOnlySQLError
@_exported import enum Vein.SQLConditionError
@_exported import enum Vein.JSONValue
@_exported import struct Vein.JSONObject
@_exported import struct Vein.FetchExplanation
@_exported import class Vein.ModelObject
// Key providers and migration: what the container's errors and custom providers name.
@_exported import protocol Vein.Keyring
@_exported import struct Vein.SecretServiceKeyring
@_exported import enum Vein.KeyError
@_exported import enum Vein.MigrationError
@_exported import struct Vein.MigrationReport
// What `ModelContainer.sync` reports.
@_exported import enum Vein.SyncError
import Vein

/// A schema version (`ModelVersion(0, 0, 1)`), as the announcement writes it.
public typealias ModelVersion = SchemaVersion
