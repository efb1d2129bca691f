import Dispatch
import Foundation

/// Runs work on several threads at once (the calling one included) and waits for it.
enum Parallel {
    /// The number of cores this process may use.
    static var processorCount: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    /// Calls `body(0 ..< count)`, in parallel when `count > 1`.
    static func run(_ count: Int, _ body: @Sendable (Int) -> Void) {
        if count <= 1 {
            body(0)
        } else {
            DispatchQueue.concurrentPerform(iterations: count, execute: body)
        }
    }
}

/// Hands a value that is not `Sendable` (a pointer, a buffer view) to `Parallel.run`'s
/// workers, which the caller guarantees touch disjoint parts of it or only read it.
struct UnsafeTransfer<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
