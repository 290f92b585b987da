/// A weak reference to keep in a collection: what a container remembers of the contexts it made, and
/// the process of the containers still open, without keeping either alive.
struct WeakReference<Object: AnyObject> {
    weak var object: Object?
    init(_ object: Object) { self.object = object }
}
