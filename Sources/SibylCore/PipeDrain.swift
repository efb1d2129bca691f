import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Reads a pipe to its end on a thread of its own, with blocking reads.
///
/// This replaces `FileHandle.readabilityHandler` for a child process's output. On Linux that
/// handler arms a libdispatch read source, and tearing such sources down while others are set up
/// (many children at once, as in a test run) can leave a freed epoll entry behind: the process
/// then crashes in `_dispatch_event_loop_drain` (swift-corelibs-libdispatch issue 949). A blocking
/// read never registers the descriptor with libdispatch, so there is nothing to tear down: the
/// loop ends at end of file, and the thread with it.
public enum PipeDrain {
    /// Starts reading `handle` until end of file or a read error.
    ///
    /// `chunk` is called with each piece read, in order, and `ended` once after the last. The
    /// handle is kept open until then; the caller must not close it.
    public static func start(
        _ handle: FileHandle,
        name: String = "sibyl.pipe-drain",
        chunk: @escaping @Sendable (Data) -> Void,
        ended: @escaping @Sendable () -> Void = {}
    ) {
        let reader = Reader(handle: handle, chunk: chunk, ended: ended)
        let thread = Thread { reader.run() }
        thread.name = name
        thread.stackSize = 256 * 1024
        thread.start()
    }

    /// Everything `handle` gives until its end, read without blocking the calling task's thread.
    ///
    /// Async code must not wait with `readDataToEndOfFile()`: it holds one of the cooperative
    /// pool's threads, of which there is one per core, and on a two-core machine two such waits
    /// freeze every task in the process.
    public static func readToEnd(_ handle: FileHandle) async -> Data {
        let collected = Collected()
        return await withCheckedContinuation { continuation in
            start(handle, chunk: { collected.append($0) }, ended: { continuation.resume(returning: collected.data) })
        }
    }

    private final class Collected: Sendable {
        private let bytes = Mutex(Data())
        func append(_ chunk: Data) { bytes.withLock { $0.append(chunk) } }
        var data: Data { bytes.withLock { $0 } }
    }

    private final class Reader: @unchecked Sendable {
        let handle: FileHandle
        let chunk: @Sendable (Data) -> Void
        let ended: @Sendable () -> Void

        init(handle: FileHandle, chunk: @escaping @Sendable (Data) -> Void, ended: @escaping @Sendable () -> Void) {
            self.handle = handle
            self.chunk = chunk
            self.ended = ended
        }

        func run() {
            let descriptor = handle.fileDescriptor
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count > 0 {
                    chunk(Data(buffer[0..<count]))
                } else if count < 0, errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            ended()
            withExtendedLifetime(handle) {}
        }
    }
}

extension Process {
    /// Waits until the process has exited, without blocking the calling task's thread (unlike
    /// `waitUntilExit()`, which holds one of the cooperative pool's few threads meanwhile).
    public func exited() async {
        // A dispatch timer rather than Task.sleep, which returns at once in a cancelled task.
        while isRunning {
            await withCheckedContinuation { (resumed: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(10)) { resumed.resume() }
            }
        }
    }
}
