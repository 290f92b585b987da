/// What a `ModelObject` holds only while it has unsaved changes: which columns and links changed, the
/// row as it was read before the first change, and what was set since an upserting insert. Most objects
/// a context holds were fetched and never changed; a box made at the first change, instead of four
/// empty collections in every object, keeps those objects small. Guarded by the context's lock, as the
/// object is.
final class ObjectEdits {
    var changed: Set<Int> = []
    var linkChanges: [Int: LinkChange] = [:]
    var readValues: [Value?]?
    var setSinceInsert: Set<Int> = []
}
