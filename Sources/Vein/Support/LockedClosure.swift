#if VEIN_TEST_HOOKS
import Foundation

/// A closure a test installs and the engine calls from any thread (the test hooks of `FileCalls` and
/// `PostgresRelay`). Not a `Mutex` of the closure: reading a function value back through `withLock`'s
/// generic `inout` wraps the stored closure in one more reabstraction thunk at every access, so the Nth
/// call ran through N layers, and a test process that made a few hundred thousand file calls spent most
/// of its time there. Kept here as a value of the generic type, each read unwraps it once.
package final class LockedClosure<Closure>: @unchecked Sendable {  // `stored` is behind `lock`
    private let lock = NSLock()
    private var stored: Closure?

    package init() {}

    package var current: Closure? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
#endif
