import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One install at a time per engines directory, across processes: an exclusive `flock` on
/// `.install.lock`. A second `sibyl models install` waits for the first instead of clearing the
/// staging files under it. The kernel drops the lock when its holder exits, even after kill -9,
/// so a crashed install never leaves the directory locked.
final class InstallLock: Sendable {
    private let descriptor: Int32

    /// Waits until the lock is free, reporting once who holds it; cancellable.
    static func acquire(in root: URL, observer: InstallObserver) async throws -> InstallLock {
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let path = root.appendingPathComponent(".install.lock").path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw InstallError.lockUnavailable(path: path, reason: String(cString: strerror(errno))) }
        var toldWaiting = false
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                let reason = String(cString: strerror(errno))
                close(descriptor)
                throw InstallError.lockUnavailable(path: path, reason: reason)
            }
            if !toldWaiting {
                toldWaiting = true
                let holder = (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
                let who = holder.map { $0.isEmpty ? "" : " (process \($0))" } ?? ""
                observer(.step("Waiting for another install in this engines directory to finish\(who)"))
            }
            do {
                try await Task.sleep(for: .milliseconds(200))
            } catch {
                close(descriptor)
                throw error
            }
        }
        // Who holds it, for the message a second install prints.
        _ = ftruncate(descriptor, 0)
        let pid = "\(getpid())\n"
        _ = pid.withCString { pwrite(descriptor, $0, strlen($0), 0) }
        return InstallLock(descriptor: descriptor)
    }

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Lets the next install go ahead (also done when the lock is released from memory).
    deinit {
        _ = ftruncate(descriptor, 0)
        close(descriptor)
    }
}
