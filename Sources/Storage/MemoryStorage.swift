public import Foundation
public import SibylCore

/// Where an account's memory is kept: beside its conversations (the SQLite file of its data
/// directory, or its part of the shared PostgreSQL). A fact outlives the conversation it came
/// from (its source link is cleared); forgetting a fact deletes it.
public protocol MemoryStorage: Sendable {
    /// Saves a fact; one whose id is kept already gets the new text, status and acceptance (where
    /// it came from and when it was made stay as they were).
    func save(_ fact: MemoryFact) async throws
    /// The facts with this status (all when nil), newest first.
    func memoryFacts(status: MemoryFact.Status?) async throws -> [MemoryFact]
    /// Deletes a fact, and takes it from the sources of the answers that cited it; false if there was none.
    @discardableResult
    func deleteMemoryFact(id: UUID) async throws -> Bool
    /// When a conversation was last read for facts (by the time of its latest message then), or nil.
    func memoryRead(conversationID: UUID) async throws -> Date?
    /// Notes that a conversation was read for facts up to `through` (its latest message's time).
    func setMemoryRead(conversationID: UUID, through: Date) async throws
}
