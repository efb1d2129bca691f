public import Assistant
public import Foundation
public import SibylCore
import Storage

extension SibylRuntime.Memory {
    /// The facts with this status (all when nil), newest first.
    public func facts(status: MemoryFact.Status? = nil) async throws -> [MemoryFact] {
        try await runtime.memoryStore.memoryFacts(status: status)
    }

    /// Remembers what the user wrote: theirs, so accepted at once.
    @discardableResult
    public func remember(_ text: String) async throws -> MemoryFact {
        let sentence = try Self.checked(text)
        let now = Date()
        let fact = MemoryFact(text: sentence, status: .accepted, createdAt: now, acceptedAt: now)
        try await runtime.memoryStore.save(fact)
        runtime.events.publish(.memory)
        await runtime.log(.info, .memoryAdd, "remembered a fact the user wrote (\(fact.shortID))")
        return fact
    }

    /// Accepts a proposed fact (the id or the start of it): answers may use it from now on. A fact
    /// already accepted stays as it is.
    @discardableResult
    public func accept(_ id: String) async throws -> MemoryFact {
        var fact = try await fact(id)
        guard fact.status != .accepted else { return fact }
        fact.status = .accepted
        fact.acceptedAt = Date()
        try await runtime.memoryStore.save(fact)
        runtime.events.publish(.memory)
        await runtime.log(.info, .memoryAccept, "accepted a proposed fact (\(fact.shortID))")
        return fact
    }

    /// Forgets a fact (the id or the start of it), proposed or accepted: it is deleted.
    @discardableResult
    public func forget(_ id: String) async throws -> MemoryFact {
        let fact = try await fact(id)
        guard try await runtime.memoryStore.deleteMemoryFact(id: fact.id) else { throw AssistantError.memoryFactNotFound(id) }
        runtime.events.publish(.memory)
        await runtime.log(.info, .memoryForget, "forgot a fact (\(fact.shortID), \(fact.status.rawValue))")
        return fact
    }

    /// The accepted facts that bear on a question (see `MemoryRecall`); none when the embedder
    /// cannot be reached (the answer goes on without them; the log says why).
    public func relevant(to question: String) async -> [RememberedFact] {
        do {
            let accepted = try await facts(status: .accepted)
            guard !accepted.isEmpty else { return [] }
            let setup = try await runtime.embeddingSetup()
            return try await runtime.memoryRecall.relevant(to: question, among: accepted, embedder: setup.embedder, model: setup.model)
        } catch {
            await runtime.log(.warning, .ask, "answered without the memory: \(error.localizedDescription)")
            return []
        }
    }

    /// The one fact whose id starts with `id` (hyphens and letter case ignored).
    public func fact(_ id: String) async throws -> MemoryFact {
        let wanted = Self.idKey(id)
        guard !wanted.isEmpty, wanted.count <= 32, wanted.allSatisfy(\.isHexDigit) else { throw AssistantError.memoryFactNotFound(id.trimmingCharacters(in: .whitespaces)) }
        let matches = try await facts().filter { Self.idKey($0.id.uuidString).hasPrefix(wanted) }
        switch matches.count {
        case 0: throw AssistantError.memoryFactNotFound(id.trimmingCharacters(in: .whitespaces))
        case 1: return matches[0]
        default: throw AssistantError.ambiguousMemoryFact(id.trimmingCharacters(in: .whitespaces), candidates: matches.map(\.shortID))
        }
    }

    private static func idKey(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespaces).lowercased().replacingOccurrences(of: "-", with: "")
    }

    /// One sentence of words, its spaces tidied.
    static func checked(_ text: String) throws -> String {
        let sentence = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard sentence.contains(where: { $0.isLetter || $0.isNumber }) else { throw AssistantError.emptyMemoryFact }
        guard sentence.count <= MemoryFact.maximumLength else { throw AssistantError.memoryFactTooLong(sentence.count) }
        return sentence
    }
}

extension MemoryFact {
    /// The id as lists show it: its first eight hex digits.
    public var shortID: String { String(id.uuidString.lowercased().prefix(8)) }
}

extension SibylRuntime.Memory {
    /// What one reading of the conversations found.
    public struct Reading: Sendable {
        /// The conversations read (one short model call each).
        public var conversationsRead = 0
        /// The facts proposed (accepted at once with `memory.auto_accept`).
        public var facts: [MemoryFact] = []
        /// Conversations that could not be read now (the model failed): tried again next time.
        public var failures: [String] = []
    }

    /// The most conversations one reading takes on, and how far back it looks.
    static let conversationsPerReading = 10
    static let lookBack: TimeInterval = 7 * 24 * 3600

    /// Reads the conversations that went quiet (no message for `quiet`) since they were last read,
    /// for facts about the user: one short model call each, never more than once per quiet. Chats
    /// only: captions and translations say what others said. Nothing is read while an answer is
    /// still being written.
    public func readQuietConversations(quiet: Duration, now: Date = Date()) async throws -> Reading {
        let quietSeconds = TimeInterval(quiet.components.seconds)
        var reading = Reading()
        var candidates: [Conversation] = []
        for summary in try await runtime.store.conversations(ConversationQuery(), limit: 50, offset: 0) {
            let conversation = summary.conversation
            guard conversation.mode == .chat, ![.captions, .mcp].contains(conversation.source),
                  conversation.updatedAt <= now.addingTimeInterval(-quietSeconds), conversation.updatedAt >= now.addingTimeInterval(-Self.lookBack) else { continue }
            if let read = try await runtime.memoryStore.memoryRead(conversationID: conversation.id), read >= conversation.updatedAt { continue }
            candidates.append(conversation)
            if candidates.count == Self.conversationsPerReading { break }
        }
        guard !candidates.isEmpty else { return reading }
        let setup = try await SettingsChatBackend(providers: runtime.providers).chat(for: TurnOptions())
        let status: MemoryFact.Status = runtime.settings[.memoryAutoAccept] ? .accepted : .proposed
        for conversation in candidates {
            let messages = try await runtime.store.messages(in: conversation.id)
            guard !messages.contains(where: { $0.status == .pending }) else { continue }
            let proposals: [MemoryProposer.Proposal]
            do {
                proposals = try await MemoryProposer.propose(from: messages, known: try await facts(), model: setup.model, modelName: setup.options.model)
            } catch {
                try Task.checkCancellation()
                reading.failures.append("\(conversation.id.uuidString.prefix(8).lowercased()): \(error.localizedDescription)")
                await runtime.log(.warning, .memoryPropose, "could not read conversation \(conversation.id.uuidString.prefix(8).lowercased()) for facts: \(error.localizedDescription)")
                continue
            }
            let now = Date()
            for proposal in proposals {
                let fact = MemoryFact(
                    text: proposal.text, status: status, conversationID: conversation.id, messageID: proposal.messageID,
                    createdAt: now, acceptedAt: status == .accepted ? now : nil
                )
                try await runtime.memoryStore.save(fact)
                reading.facts.append(fact)
            }
            try await runtime.memoryStore.setMemoryRead(conversationID: conversation.id, through: conversation.updatedAt)
            reading.conversationsRead += 1
            if !proposals.isEmpty {
                runtime.events.publish(.memory)
                await runtime.log(.info, .memoryPropose, "\(status == .accepted ? "remembered" : "proposed") \(proposals.count) fact\(proposals.count == 1 ? "" : "s") from conversation \(conversation.id.uuidString.prefix(8).lowercased())")
            }
        }
        return reading
    }
}

extension SibylRuntime.Memory {
    /// Measures the memory on a labelled set (`scripts/eval/memory.json`): the precision of the
    /// facts proposed from its conversations, whether its questions recall the fact they need (and
    /// none when they need none), and whether the answers given with what was recalled are right.
    /// Nothing is stored: the set's memory lives only in this evaluation.
    public func evaluate(file: URL, options: TurnOptions = TurnOptions(), progress: @escaping @Sendable (String) -> Void = { _ in }) async throws -> MemoryEvaluation {
        let set = try MemoryEvaluationSet(file: file)
        let started = ContinuousClock.now
        let setup = try await SettingsChatBackend(providers: runtime.providers).chat(for: options)
        let modelName = options.model ?? setup.options.model
        var proposed: [MemoryEvaluation.Proposed] = []
        for (index, conversation) in set.conversations.enumerated() {
            let proposals = try await MemoryProposer.propose(from: MemoryEvaluationSet.messages(of: conversation), known: [], model: setup.model, modelName: modelName)
            let graded = MemoryEvaluation.grade(proposals.map(\.text), against: conversation.facts, conversation: conversation.id)
            proposed.append(graded)
            let marks = graded.proposals.map { ($0.right ? "✓ " : "✗ ") + $0.text }
            progress("[\(index + 1)/\(set.conversations.count)] \(conversation.id): \(marks.isEmpty ? "nothing proposed" : marks.joined(separator: "; "))")
        }
        let embedding = try await runtime.embeddingSetup()
        let memory = set.memory.map { MemoryFact(text: $0, status: .accepted) }
        let recall = MemoryRecall()
        var asked: [MemoryEvaluation.Asked] = []
        for (index, question) in set.questions.enumerated() {
            let needed = question.needs.map { set.memory[$0] }
            let scored = try await recall.scores(of: question.question, among: memory, embedder: embedding.embedder, model: embedding.model)
            let recalled = MemoryRecall.select(scored, for: question.question)
            var messages: [ChatMessage] = []
            if let instruction = options.remembering(recalled).memoryInstruction { messages.append(.system(instruction)) }
            messages.append(.user(question.question))
            var answer = ""
            if case .answering(let answering) = try await runtime.conversations.complete(CompletionRequest(messages: messages, persona: "assistant", options: options), loggingAs: nil) {
                answer = try await answering.whole().text
            }
            let result = MemoryEvaluation.Asked(
                question: question.question, needs: needed, recalled: recalled, neededScore: scored.first { $0.fact.text == needed }?.score,
                answer: answer, answeredRight: question.answer.found(in: answer)
            )
            asked.append(result)
            progress("[\(index + 1)/\(set.questions.count)] \(result.recalledNeeded ? "recalled right" : "recalled wrong"), answered \(result.answeredRight ? "right" : "wrong"): \(question.question)")
        }
        let evaluation = MemoryEvaluation(model: modelName, embeddingModel: embedding.model, proposed: proposed, asked: asked, elapsed: ContinuousClock.now - started)
        await runtime.log(.info, .eval, "memory on \(file.path): precision \(String(format: "%.2f", evaluation.precision)) of \(evaluation.proposals) proposals")
        return evaluation
    }
}
