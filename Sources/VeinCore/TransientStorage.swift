import Synchronization

/// Where a `@Transient var` of a model keeps its value: a model is `Sendable` (contexts on several threads
/// share its instances), so a mutable stored property would be a data race; `@Transient` makes the
/// property a computed one over this lock-protected box instead. Apps do not use it directly.
public final class TransientStorage<Value: Sendable>: Sendable {
    /// Nil only between the instance's allocation and its initializer's first step: the property's `init`
    /// accessor sets the initial value before anything can read it.
    private let value: Mutex<Value?>

    /// Empty until the property's `init` accessor gives the initial value.
    public init() { value = Mutex(nil) }

    /// Holding `initial` (an optional property written without an initial value starts as nil).
    public init(_ initial: Value) { value = Mutex(initial) }

    public func get() -> Value {
        value.withLock { current in
            guard let current else { preconditionFailure("a @Transient property was read before its initial value was set") }
            return current
        }
    }

    public func set(_ newValue: Value) {
        value.withLock { $0 = newValue }
    }
}
