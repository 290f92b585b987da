/// When a context's copies of rows were read, so that a read meeting an object it holds knows whether to
/// replace the copy: an object read before the current `transaction` began (`isStale`), or before another
/// connection's commit that the context has noticed (`isOutdated`), is read anew unless it has changes.
///
/// Its state is its own: the context stamps objects and asks through these methods, under its lock.
struct ReadClock {
    /// Counts the two events below, both: an object is stamped with the count when its values are read
    /// (`ModelObject.readAt`), and a read happened before an event when its stamp is less than the
    /// event's. One count, so that an object keeps one stamp, not one per kind of event.
    private var now = 0
    /// `now` when the current (or last) `transaction` body began.
    private var transactionBegan = 0
    /// `now` when the context last noticed another connection's commit.
    private var otherWriterCommitted = 0
    /// `PRAGMA data_version` when the context last looked, from the opening of its connection on.
    private var lastDataVersion: Int64?

    mutating func beginTransaction() {
        now += 1
        transactionBegan = now
    }

    /// Takes the connection's `PRAGMA data_version`: a change since the last look means another
    /// connection (another context, another process) committed, and the copies read before may be out of
    /// date. The first look (at the connection's opening) only sets the mark.
    mutating func observe(dataVersion: Int64?, opening: Bool = false) {
        guard dataVersion != lastDataVersion else { return }
        lastDataVersion = dataVersion
        guard !opening else { return }
        now += 1
        otherWriterCommitted = now
    }

    /// Marks `object`'s values as read now.
    func stamp(_ object: ModelObject) {
        object.readAt = now
    }

    /// A new object, read (or made) now.
    func makeObject(key: ObjectKey, layout: ModelLayout, values: [Value], unloaded: Set<Int>, state: ModelObject.State) -> ModelObject {
        ModelObject(key: key, layout: layout, values: values, unloaded: unloaded, state: state, readAt: now)
    }

    /// A new object read now, its values written by `fill` (`ModelObject.init(key:layout:unloaded:state:readAt:fill:)`).
    func makeObject<E: Error>(key: ObjectKey, layout: ModelLayout, unloaded: Set<Int>, state: ModelObject.State,
                              fill: (UnsafeMutableBufferPointer<Value>) throws(E) -> Void) throws(E) -> ModelObject {
        try ModelObject(key: key, layout: layout, unloaded: unloaded, state: state, readAt: now, fill: fill)
    }

    /// Whether `object` was read before the current `transaction` began.
    func readBeforeThisTransaction(_ object: ModelObject) -> Bool { object.readAt < transactionBegan }

    /// Whether `object` was read before the last commit of another connection that the context noticed.
    func readBeforeOtherWriters(_ object: ModelObject) -> Bool { object.readAt < otherWriterCommitted }
}
