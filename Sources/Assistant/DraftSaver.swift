import Dispatch
import Foundation
import Storage
import Synchronization

/// The queue database work on the answer path runs on: a serial queue of its own, so libdispatch
/// gives it a thread even while every worker of the global pool is busy (embedding documents keeps
/// them busy for minutes), and SQLite, which has one writer, gets one caller at a time.
let databaseWork = DispatchQueue(label: "sibyl.database-work", qos: .userInitiated)

/// Runs blocking work, such as a database write, on `databaseWork`, and waits for it without
/// holding a thread.
///
/// Swift runs every task on a pool of one thread per core. A write that waits for SQLite's lock
/// or the disk on one of those threads stalls every answer streaming on the server; on a
/// two-core machine, two of them stall everything. Cancellation does not reach `work`: a
/// cancelled answer is still saved as cancelled.
public func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        databaseWork.async {
            continuation.resume(with: Result { try work() })
        }
    }
}

/// Saves answers as they grow: the latest text of each, many answers in one transaction, away
/// from the threads that stream them.
///
/// With hundreds of answers streaming at once, one write per answer per second would queue
/// behind SQLite's single writer; here each answer only leaves its text, and whatever has
/// gathered while one transaction runs goes into the next.
final class DraftSaver: Sendable {
    private struct State {
        var drafts: [UUID: String] = [:]
        var flushing = false
    }

    private let store: ConversationStore
    private let state = Mutex(State())

    init(store: ConversationStore) {
        self.store = store
    }

    /// Keeps `text` as the answer's text to save next.
    func save(_ text: String, of answerID: UUID) {
        let startFlushing = state.withLock { state in
            state.drafts[answerID] = text
            guard !state.flushing else { return false }
            state.flushing = true
            return true
        }
        if startFlushing {
            databaseWork.async { self.flush() }
        }
    }

    /// Drops the answer's unsaved draft: its final state is about to be saved.
    func discard(_ answerID: UUID) {
        _ = state.withLock { $0.drafts.removeValue(forKey: answerID) }
    }

    /// Saves what has gathered in one transaction; what gathers meanwhile goes in the next, queued
    /// behind the work that waited for this one.
    private func flush() {
        let drafts = state.withLock { state in
            let drafts = state.drafts
            state.drafts = [:]
            if drafts.isEmpty { state.flushing = false }
            return drafts
        }
        guard !drafts.isEmpty else { return }
        // A draft that cannot be saved is not lost: the final save writes the whole answer.
        try? store.saveDrafts(drafts)
        databaseWork.async { self.flush() }
    }
}
