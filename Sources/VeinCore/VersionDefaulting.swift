import Foundation

/// `VersionedSchema.version` and `versionIdentifier` each default to the other, as Swift cannot require
/// one of two: a schema that declares neither would recurse until the stack runs out. Each default runs
/// through `defaulting`, which notices on this thread that it was entered again for the same schema and
/// answers `undeclared` instead; `declaredVersion` turns that into `ModelContainerError.noVersion`.
enum VersionDefaulting {
    /// What a schema that declares no version reads (the container refuses it before it is used).
    static let undeclared = ModelVersion(0, 0, 0)
    private static let inProgressKey = "vein.versionDefaulting.inProgress"
    private static let reenteredKey = "vein.versionDefaulting.reentered"

    /// `body` (the other spelling's value), or `undeclared` when that is this same default again.
    static func defaulting<V: VersionedSchema>(_ schema: V.Type, _ body: () -> ModelVersion) -> ModelVersion {
        let threadState = Thread.current.threadDictionary
        let key = "\(inProgressKey).\(ObjectIdentifier(schema).hashValue)"
        if threadState[key] != nil {
            threadState[reenteredKey] = true
            return undeclared
        }
        threadState[key] = true
        defer { threadState.removeObject(forKey: key) }
        return body()
    }

    /// The schema's version; throws when it declares neither `version` nor `versionIdentifier`.
    static func declaredVersion<V: VersionedSchema>(of schema: V.Type) throws -> ModelVersion {
        let threadState = Thread.current.threadDictionary
        threadState.removeObject(forKey: reenteredKey)
        let version = V.version
        guard threadState[reenteredKey] == nil else {
            threadState.removeObject(forKey: reenteredKey)
            throw ModelContainerError.noVersion(schema: "\(V.self)")
        }
        return version
    }
}
