/// The versions of the JSON interchange (docs/interchange.md): export writes the current one, import reads
/// each of them, so a file exported by an earlier vein still imports.
package enum InterchangeVersion {
    package static let current = 2

    /// The member that holds a record's key, by version: `_id` since version 2, where a model may have a
    /// field named `id`; `id` in version 1. Nil for a version import does not read.
    package static func keyMember(_ version: Int64) -> String? {
        switch version {
        case 1: return "id"
        case 2: return "_id"
        default: return nil
        }
    }
}
