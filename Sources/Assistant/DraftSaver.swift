import Foundation
import Storage
import Synchronization

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

    private let store: any ConversationStorage
    private let state = Mutex(State())

    init(store: any ConversationStorage) {
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
            Task { await self.flush() }
        }
    }

    /// Drops the answer's unsaved draft: its final state is about to be saved.
    func discard(_ answerID: UUID) {
        _ = state.withLock { $0.drafts.removeValue(forKey: answerID) }
    }

    /// Saves what has gathered in one transaction, and what gathered meanwhile in the next, until
    /// nothing is left.
    private func flush() async {
        while true {
            let drafts = state.withLock { state in
                let drafts = state.drafts
                state.drafts = [:]
                if drafts.isEmpty { state.flushing = false }
                return drafts
            }
            guard !drafts.isEmpty else { return }
            // A draft that cannot be saved is not lost: the final save writes the whole answer.
            try? await store.saveDrafts(drafts)
        }
    }
}
