// What an app that imports VeinCore only needs of the engine, by name. The engine's dynamic API
// (string-keyed ModelContext, FetchDescriptor) is not re-exported: VeinCore has typed ones.
@_exported import enum Vein.DeleteRule
@_exported import struct Vein.SchemaVersion
@_exported import struct Vein.SchemaManifest
@_exported import enum Vein.KeySource
@_exported import struct Vein.KeyOptions
@_exported import enum Vein.StoreError
@_exported import enum Vein.ContextError
@_exported import enum Vein.ReadOnlySQLError
@_exported import enum Vein.SQLConditionError
@_exported import enum VeinFieldTypes.FieldType
@_exported import enum Vein.Value
@_exported import enum Vein.JSONValue
@_exported import struct Vein.JSONObject
@_exported import class Vein.Store
import Vein

/// A schema version (`ModelVersion(0, 0, 1)`), as the announcement writes it.
public typealias ModelVersion = SchemaVersion
/// The engine's object under a model instance (generated code names it through VeinCore).
public typealias ModelObject = Vein.ModelObject
// Key providers and migration: what the container's errors and custom providers name.
@_exported import protocol Vein.Keyring
@_exported import struct Vein.SecretServiceKeyring
@_exported import enum Vein.KeyError
@_exported import enum Vein.MigrationError
@_exported import struct Vein.MigrationReport
