import Assistant
import Foundation
import Storage
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which processes may be writing answers into a data directory: each runtime holds a shared
/// `flock` on `.answers.lock` for its lifetime, and the kernel drops it when the process ends, even
/// by kill -9.
///
/// A runtime that finds no other holder (it gets the lock exclusively for a moment) knows every
/// answer still `pending` was left by a process that died, and marks those failed at once; with
/// another process alive (the server while a `sibyl chat` runs), nothing is touched and a dead
/// answer is settled when its conversation is next used.
final class AnswerLease: Sendable {
    private let descriptor: Int32

    /// Takes the lease on `home`, first settling dead answers when this is the only process there.
    init(home: URL, store: ConversationStore) {
        descriptor = open(home.appendingPathComponent(".answers.lock").path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return }
        if flock(descriptor, LOCK_EX | LOCK_NB) == 0 {
            _ = try? store.failPendingAnswers(reason: "interrupted: Sibyl stopped before the answer was complete")
        }
        // Converting to shared never waits on our own exclusive lock; it may wait a moment for
        // another process that is settling.
        _ = flock(descriptor, LOCK_SH)
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }
}
