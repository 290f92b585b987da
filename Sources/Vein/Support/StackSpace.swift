import CVeinMemory
import Foundation

/// How much of the current thread's stack is left, for the recursive passes over user input (the
/// expression parser, type checker, SQL compiler and evaluator). A nesting limit alone does not keep them
/// safe: a frame's size depends on the build (a debug build's parser used about 10 KiB of stack per level
/// of parentheses, a fuzzer build with the address sanitizer twice that) and a thread's stack on who made
/// it (8 MiB for the main thread here, 512 KiB is common elsewhere). So each pass also asks for room before
/// going one level deeper, and hostile nesting becomes an error instead of a crash on any thread.
enum StackSpace {
    /// Room the parser leaves for the passes that walk its tree afterwards and for the work around them:
    /// 256 KiB, or a quarter of a smaller stack.
    static var parserReserve: Int { min(256 << 10, thread.size / 4) }
    /// Room the passes after the parser keep, below which they stop (an error, or SQL left to memory):
    /// 64 KiB, or a sixteenth of a smaller stack.
    static var passReserve: Int { min(64 << 10, thread.size / 16) }

    /// Whether at least `bytes` of this thread's stack lie beyond the caller's frame.
    @inline(__always)
    static func hasRoom(_ bytes: Int) -> Bool {
        let here = UInt(vein_stack_pointer())
        let bound = thread.lowerBound
        return here < bound || here - bound > UInt(bytes)
    }

    /// This thread's stack: the lowest address it may grow to (stacks grow down on every platform Swift
    /// runs on here) and its size. Looked up once per thread (glibc reads /proc/self/maps for the main
    /// thread) and kept under a thread key; when it cannot be known every check passes.
    private struct ThreadStack {
        var lowerBound: UInt
        var size: Int
    }

    private static var thread: ThreadStack {
        if let cached = pthread_getspecific(key) { return cached.load(as: ThreadStack.self) }
        var stack = ThreadStack(lowerBound: 0, size: Int.max)
        var base: UInt = 0
        var size = 0
        if vein_stack_lower_bound(&base, &size) == 0 {
            // A guard page sits at the bottom; keep a page more than it.
            stack = ThreadStack(lowerBound: base + 8192, size: size)
        }
        let slot = UnsafeMutablePointer<ThreadStack>.allocate(capacity: 1)
        slot.initialize(to: stack)
        pthread_setspecific(key, slot)
        return stack
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { free($0) }
        return key
    }()
}
