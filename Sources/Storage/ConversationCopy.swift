import Foundation
import SibylCore

/// Copies one owner's conversations and personas from one back end to another (a data directory's
/// SQLite file into the shared PostgreSQL, or back), for `sibyl db migrate --to`.
///
/// Nothing is lost when a copy is interrupted: the source is only read, and each conversation is
/// imported whole (with its messages and attachments, ids kept) in one transaction, then read back
/// and compared with its original. Running the copy again skips conversations already there as
/// they are; one that is there but differs (it went on in the destination since) is kept as it is.
/// The operations log is not copied: it describes what happened where.
public enum ConversationCopy {
    public struct Report: Sendable, Hashable {
        public var copied = 0
        public var messages = 0
        public var alreadyThere = 0
        /// Conversations the destination has with other contents: left as they are there.
        public var changedThere = 0
        public var personas = 0
        /// Facts of the owner's memory copied (those the destination did not have).
        public var memoryFacts = 0
        /// Conversations whose copy does not read back as the original (their ids).
        public var mismatches: [String] = []
    }

    /// One step, for progress: the conversation just handled, of how many.
    public struct Step: Sendable {
        public var index: Int
        public var of: Int
        public var title: String
    }

    public static func copy(
        from source: any ConversationStorage, to destination: any ConversationStorage, progress: @Sendable (Step) -> Void = { _ in }
    ) async throws -> Report {
        var report = Report()
        var summaries: [ConversationSummary] = []
        let everything = ConversationQuery()
        while true {
            let page = try await source.conversations(everything, limit: 500, offset: summaries.count)
            summaries += page
            if page.count < 500 { break }
        }
        // Oldest first, so that the destination's listing ends up in the same order.
        for (index, summary) in summaries.reversed().enumerated() {
            progress(Step(index: index + 1, of: summaries.count, title: summary.conversation.title ?? summary.id.uuidString.lowercased()))
            let original = try await source.archive(conversationID: summary.id)
            if (try await destination.conversation(id: summary.id)) != nil {
                if Self.same(try await destination.archive(conversationID: summary.id), original) {
                    report.alreadyThere += 1
                } else {
                    report.changedThere += 1
                }
                continue
            }
            let stored = try await destination.importArchive(original)
            guard stored.id == summary.id, Self.same(try await destination.archive(conversationID: stored.id), original) else {
                report.mismatches.append(summary.id.uuidString.lowercased())
                continue
            }
            report.copied += 1
            report.messages += original.messages.count
        }
        for persona in try await source.personas() where try await destination.persona(named: persona.name) == nil {
            try await destination.save(persona)
            report.personas += 1
        }
        if let source = source as? any MemoryStorage, let destination = destination as? any MemoryStorage {
            try await copyMemory(from: source, to: destination, conversations: summaries.map(\.id), report: &report)
        }
        return report
    }

    /// Copies the facts the destination does not have (ids kept, so their sources still link), and
    /// when each conversation was last read for facts, so none is read twice.
    static func copyMemory(from source: any MemoryStorage, to destination: any MemoryStorage, conversations: [UUID], report: inout Report) async throws {
        let there = Set(try await destination.memoryFacts(status: nil).map(\.id))
        // Oldest first, as the conversations.
        for fact in try await source.memoryFacts(status: nil).reversed() where !there.contains(fact.id) {
            try await destination.save(fact)
            report.memoryFacts += 1
        }
        for id in conversations {
            // Every one of them is in the destination by now (copied, or there before).
            guard let read = try await source.memoryRead(conversationID: id), try await destination.memoryRead(conversationID: id) == nil else { continue }
            try await destination.setMemoryRead(conversationID: id, through: read)
        }
    }

    /// Whether two archives hold the same conversation, whenever each was made.
    static func same(_ one: ConversationArchive, _ other: ConversationArchive) -> Bool {
        var (one, other) = (one, other)
        one.exportedAt = .distantPast
        other.exportedAt = .distantPast
        return one == other
    }
}
