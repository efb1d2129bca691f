import Foundation
import Synchronization

/// Engine processes Sibyl started, so they are stopped when Sibyl exits, however it exits normally.
///
/// `exit()` runs `atexit` handlers; the CLI turns SIGINT and SIGTERM into exits, so servers do not
/// outlive the command that started them.
public final class ChildProcesses: Sendable {
    public static let shared = ChildProcesses()

    private let pids = Mutex<Set<Int32>>([])
    private let hooked = Mutex(false)

    func remember(_ pid: Int32) {
        pids.withLock { _ = $0.insert(pid) }
        hooked.withLock { hooked in
            guard !hooked else { return }
            hooked = true
            atexit { ChildProcesses.shared.terminateAll() }
        }
    }

    func forget(_ pid: Int32) {
        pids.withLock { _ = $0.remove(pid) }
    }

    /// Sends SIGTERM to every child still running.
    public func terminateAll() {
        let all = pids.withLock { pids in
            defer { pids.removeAll() }
            return pids
        }
        for pid in all { kill(pid, SIGTERM) }
    }
}

/// Picks a free TCP port on the loopback interface.
enum FreePort {
    static func find() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw LocalEngineError.noFreePort }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw LocalEngineError.noFreePort }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw LocalEngineError.noFreePort }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
