public import SibylCore

/// The part of a conversation's history that fits the model's context.
public struct HistoryWindow: Sendable {
    /// The messages to send: the system prompt first, then the newest turns that fit.
    public var messages: [ChatMessage]
    /// Tokens the messages cost, by the counter used.
    public var tokens: Int
    /// How many older messages were left out.
    public var droppedMessages: Int

    /// Fits history into `budget` tokens.
    ///
    /// The system prompt and the last turn are always kept; older turns (a user message and the
    /// answers that follow it) are dropped oldest first, whole, so the model never sees an answer
    /// without its question.
    public static func fit(system: ChatMessage?, history: [ChatMessage], budget: Int, counter: some TokenCounter) throws -> HistoryWindow {
        let turns = split(history)
        let systemCost = system.map { counter.count($0) } ?? 0
        guard let last = turns.last else {
            return HistoryWindow(messages: system.map { [$0] } ?? [], tokens: systemCost, droppedMessages: 0)
        }
        let lastCost = last.reduce(0) { $0 + counter.count($1) }
        guard systemCost + lastCost <= budget else {
            throw AssistantError.messageTooLong(tokens: lastCost, budget: max(0, budget - systemCost))
        }
        var kept: [[ChatMessage]] = [last]
        var used = systemCost + lastCost
        for turn in turns.dropLast().reversed() {
            let cost = turn.reduce(0) { $0 + counter.count($1) }
            if used + cost > budget { break }
            kept.append(turn)
            used += cost
        }
        let keptMessages = kept.reversed().flatMap { $0 }
        return HistoryWindow(
            messages: (system.map { [$0] } ?? []) + keptMessages,
            tokens: used,
            droppedMessages: history.count - keptMessages.count
        )
    }

    /// Groups messages into turns, each starting at a user message.
    static func split(_ history: [ChatMessage]) -> [[ChatMessage]] {
        var turns: [[ChatMessage]] = []
        for message in history {
            if message.role == .user || turns.isEmpty {
                turns.append([message])
            } else {
                turns[turns.count - 1].append(message)
            }
        }
        return turns
    }
}
