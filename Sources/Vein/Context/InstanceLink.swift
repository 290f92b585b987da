import CVeinMemory

/// An object's link to its typed instance (VeinCore's `@Model` class): the instance while it lives, nil
/// after, as a `weak` reference reads, without the side table the runtime allocates for the first weak
/// reference to each instance (a heap block per fetched row, and the slow path for every retain and
/// release of the instance after it).
///
/// The link is unowned: it keeps the instance's memory, not the instance, so it closes no cycle (the
/// instance holds its object and, through it, the context that holds the object). A read takes a strong
/// reference only if the instance is not being deinitialized (the runtime's `swift_tryRetain`, what `weak`
/// does too). The memory of an instance that is gone stays until the link changes or its object goes.
///
/// Not thread-safe: its owner's lock guards it (`ModelObject.typedModel`).
struct InstanceLink: ~Copyable {
    private var instance: UnsafeMutableRawPointer?

    init() {}

    deinit {
        if let instance { vein_unowned_release(instance) }
    }

    /// The instance, or nil when none was linked or it is gone (or going).
    func load() -> AnyObject? {
        guard let instance, vein_try_retain(instance) else { return nil }
        return Unmanaged<AnyObject>.fromOpaque(instance).takeRetainedValue()
    }

    mutating func store(_ new: AnyObject?) {
        let newInstance = new.map { Unmanaged.passUnretained($0).toOpaque() }
        if let newInstance { vein_unowned_retain(newInstance) }
        if let instance { vein_unowned_release(instance) }
        instance = newInstance
    }
}
