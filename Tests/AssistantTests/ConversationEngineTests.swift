import Foundation
import OpenAITestServer
import SibylCore
import Storage
import TestEvents
import Testing
@testable import Assistant

@Suite("Conversation engine", .timeLimit(.minutes(10)))
struct ConversationEngineTests {
    @Test func anAnswerStreamsIsSavedAndTheConversationGetsATitle() async throws {
        try await EngineFixture.with { fixture in
            fixture.answerEverything(with: ["Paris", " is the capital."], title: "\"French Capital.\"")
            let conversation = try await fixture.engine.startConversation(source: .cli)
            let all = await events(of: try await fixture.engine.send("What is the capital of France?", in: conversation.id))

            guard case .started(let question, let answerID) = all.first else { Issue.record("no start event"); return }
            #expect(question.text == "What is the capital of France?")
            #expect(all.text == "Paris is the capital.")
            let answer = try #require(all.finished)
            #expect(answer.id == answerID)
            #expect(answer.status == .complete)
            #expect(answer.usage == TokenUsage(promptTokens: 10, completionTokens: 2))
            #expect(answer.timings?.timeToFirstToken != nil)
            #expect(all.title == "French Capital")

            let stored = try fixture.store.messages(in: conversation.id)
            #expect(stored.map(\.role) == [.user, .assistant])
            #expect(stored[1].text == "Paris is the capital.")
            #expect(stored[1].status == .complete)
            #expect(stored[1].usage?.completionTokens == 2)
            #expect(try fixture.store.conversation(id: conversation.id)?.title == "French Capital")

            let sent = try #require(fixture.answerRequests.first)
            #expect(sent.sentMessages.first?.role == "system")
            #expect(sent.sentMessages.first?.content.contains("Sibyl") == true)
            #expect(sent.sentMessages.last?.content == "What is the capital of France?")
        }
    }

    @Test func anAnswerIsSavedAsItGrows() async throws {
        // What the engine saves while the answer grows, in order, as it saves it.
        let drafts = Observed<[String]>([])
        let options = EngineOptions(model: "test-model", titles: .firstWords, saveInterval: .zero)
        try await EngineFixture.with(options: options, storage: { DraftRecordingStorage(QueuedConversationStore($0), drafts: drafts) }) { fixture in
            // The answer is held after its first piece until the engine has saved that piece.
            let saved = Gate()
            fixture.server.handle(chatPath) { _ in .chatStream(["Once", " upon", " a time."], holdingAfter: 1, until: { await saved.pass() }) }
            let conversation = try await fixture.engine.startConversation(source: .cli)
            let turn = try await fixture.engine.send("Tell a story", in: conversation.id)
            let first = try await drafts.wait(for: "a draft of the answer") { $0.first }
            let draft = try #require(try fixture.store.message(id: turn.answerID))
            saved.open()
            let all = await events(of: turn)

            #expect(first == "Once")
            #expect(draft.status == .pending && draft.text == "Once", "the answer was in the store before it was complete")
            #expect(all.text == "Once upon a time.")
            #expect(drafts.value.allSatisfy { "Once upon a time.".hasPrefix($0) })
            let stored = try #require(try fixture.store.message(id: turn.answerID))
            #expect(stored.status == .complete)
            #expect(stored.text == "Once upon a time.")
        }
    }

    @Test func historyIsSentOnLaterTurns() async throws {
        try await EngineFixture.with { fixture in
            fixture.answerEverything(with: ["ok"])
            let conversation = try await fixture.engine.startConversation(source: .cli)
            _ = await events(of: try await fixture.engine.send("first", in: conversation.id))
            _ = await events(of: try await fixture.engine.send("second", in: conversation.id))
            let last = try #require(fixture.answerRequests.last)
            #expect(last.sentMessages.map(\.role) == ["system", "user", "assistant", "user"])
            #expect(last.sentMessages.map(\.content).suffix(3) == ["first", "ok", "second"])
            // The title is made once, after the first answer only.
            #expect(fixture.server.requests(to: chatPath).count == 3)
        }
    }

    @Test func aDroppedConnectionLeavesAFailedPartialAnswerThatRetryReplaces() async throws {
        try await EngineFixture.with { fixture in
            fixture.server.enqueue(.chatStream(["Once upon", " a time"], dropAfter: 3), for: chatPath)
            let conversation = try await fixture.engine.startConversation(source: .web)
            let first = await events(of: try await fixture.engine.send("Tell a story", in: conversation.id))
            let (failedMessage, error) = try #require(first.failed)
            #expect(failedMessage.text == "Once upon a time")
            #expect(failedMessage.status == .failed)
            #expect(error.contains("cut off"))
            #expect(first.title == nil)
            var stored = try fixture.store.messages(in: conversation.id)
            #expect(stored.map(\.status) == [.complete, .failed])
            #expect(stored[1].text == "Once upon a time")

            fixture.answerEverything(with: ["A whole story."])
            let second = await events(of: try await fixture.engine.retry(in: conversation.id))
            let answer = try #require(second.finished)
            #expect(answer.id == failedMessage.id)
            stored = try fixture.store.messages(in: conversation.id)
            #expect(stored.count == 2)
            #expect(stored.map(\.status) == [.complete, .complete])
            #expect(stored[1].text == "A whole story.")
            #expect(stored[1].error == nil)
            // The retried request carries the question once, and not the failed partial answer.
            let retried = try #require(fixture.answerRequests.last)
            #expect(retried.sentMessages.map(\.content).filter { $0 == "Tell a story" }.count == 1)
            #expect(!retried.sentMessages.contains { $0.content.contains("Once upon") })
        }
    }

    @Test func anAPIErrorFailsTheTurnWithAHint() async throws {
        try await EngineFixture.with { fixture in
            fixture.server.handle(chatPath) { _ in .error(status: 401, message: "Incorrect API key provided: sk-test-engine-key-123456", code: "invalid_api_key") }
            let conversation = try await fixture.engine.startConversation(source: .cli)
            let all = await events(of: try await fixture.engine.send("hi", in: conversation.id))
            let (message, error) = try #require(all.failed)
            #expect(message.text.isEmpty)
            #expect(error.contains("HTTP 401"))
            #expect(error.contains("OPENAI_API_KEY"))
            #expect(all.failure?.remedy == .setKey(name: "openai"), "the failure carries what to do, for each shell to say its own way")
            #expect(!error.contains("engine-key-123456"))
            #expect(try fixture.store.messages(in: conversation.id).last?.error == error)
        }
    }

    @Test func cancellingKeepsThePartialAnswer() async throws {
        try await EngineFixture.with { fixture in
            fixture.server.enqueue(.chatStream(Array(repeating: "word ", count: 40), pause: .milliseconds(100)), for: chatPath)
            let conversation = try await fixture.engine.startConversation(source: .cli)
            let turn = try await fixture.engine.send("Talk a lot", in: conversation.id)
            var collected: [AssistantEvent] = []
            for await event in turn.events {
                collected.append(event)
                if case .delta = event, collected.text.count >= 10 { turn.cancel() }
            }
            let cancelled = try #require(collected.cancelled)
            #expect(cancelled.status == .cancelled)
            #expect(cancelled.text.hasPrefix("word word"))
            #expect(cancelled.text.count < 40 * 5)
            let stored = try fixture.store.messages(in: conversation.id)
            #expect(stored.last?.status == .cancelled)
            #expect(stored.last?.text == cancelled.text)
        }
    }

    @Test func oneAnswerAtATimePerConversation() async throws {
        try await EngineFixture.with { fixture in
            fixture.server.enqueue(.chatStream(["slow"], pause: .milliseconds(300)), for: chatPath)
            let conversation = try await fixture.engine.startConversation(source: .cli)
            let turn = try await fixture.engine.send("one", in: conversation.id)
            await #expect(throws: AssistantError.busy) { try await fixture.engine.send("two", in: conversation.id) }
            _ = await events(of: turn)
            #expect(try fixture.store.messages(in: conversation.id).count == 2)
        }
    }

    @Test func translatorModeSendsOnlyTheTextToTranslate() async throws {
        try await EngineFixture.with { fixture in
            fixture.answerEverything(with: ["Bonjour"])
            let conversation = try await fixture.engine.startConversation(mode: .translator(target: "French"), source: .glasses)
            _ = await events(of: try await fixture.engine.send("Good morning", in: conversation.id))
            let all = await events(of: try await fixture.engine.send("Good night", in: conversation.id))
            #expect(all.finished != nil)
            let sent = try #require(fixture.answerRequests.last)
            #expect(sent.sentMessages.count == 2)
            #expect(sent.sentMessages[0].content.contains("into French"))
            #expect(sent.sentMessages[1].content == "Good night")
            #expect(sent["temperature"] as? Double == 0.2)
            // Translator conversations are titled from their first words, without asking the model.
            #expect(try fixture.store.conversation(id: conversation.id)?.title == "Good morning")
            #expect(fixture.server.requests(to: chatPath).allSatisfy { $0.json?["stream"] as? Bool == true })
        }
    }

    @Test func longHistoryIsTrimmedOldestFirst() async throws {
        try await EngineFixture.with(options: EngineOptions(model: "m", contextWindow: 300, reserve: 100, titles: .firstWords)) { fixture in
            fixture.answerEverything(with: [String(repeating: "a", count: 150)])
            let conversation = try await fixture.engine.startConversation(source: .cli)
            for index in 0..<4 {
                _ = await events(of: try await fixture.engine.send("question \(index) " + String(repeating: "q", count: 90), in: conversation.id))
            }
            let all = await events(of: try await fixture.engine.send("last question", in: conversation.id))
            let dropped = all.compactMap { if case .historyTrimmed(let count) = $0 { count } else { nil } }.first
            #expect((dropped ?? 0) > 0)
            let sent = try #require(fixture.answerRequests.last)
            #expect(sent.sentMessages.last?.content == "last question")
            #expect(sent.sentMessages.first?.role == "system")
            #expect(!sent.sentMessages.contains { $0.content.hasPrefix("question 0") })
            // Everything is still stored; only what is sent is trimmed.
            #expect(try fixture.store.messages(in: conversation.id).count == 10)
        }
    }

    @Test func aPersonasModelAndSamplingAreUsed() async throws {
        try await EngineFixture.with { fixture in
            fixture.answerEverything(with: ["Arr!"])
            let sampling = Sampling(temperature: 1.3, maxTokens: 77, topP: 0.6, presencePenalty: 0.4, frequencyPenalty: -0.3)
            try await fixture.engine.personas.save(Persona(name: "pirate", systemPrompt: "Talk like a pirate.", model: "pirate-model", sampling: sampling))
            let conversation = try await fixture.engine.startConversation(persona: "pirate", source: .cli)
            _ = await events(of: try await fixture.engine.send("Hello", in: conversation.id))
            let sent = try #require(fixture.answerRequests.first)
            #expect(sent["model"] as? String == "pirate-model")
            #expect(sent["temperature"] as? Double == 1.3)
            #expect(sent["max_tokens"] as? Int == 77)
            #expect(sent["top_p"] as? Double == 0.6)
            #expect(sent["presence_penalty"] as? Double == 0.4)
            #expect(sent["frequency_penalty"] as? Double == -0.3)
            #expect(sent.sentMessages.first?.content == "Talk like a pirate.")

            // What one answer asks for beats the persona's choice, value by value.
            let turn = try TurnOptions(model: nil, sampling: Sampling(topP: 0.95, frequencyPenalty: 0))
            _ = await events(of: try await fixture.engine.send("Again", in: conversation.id, options: turn))
            let second = try #require(fixture.answerRequests.last)
            #expect(second["top_p"] as? Double == 0.95)
            #expect(second["frequency_penalty"] as? Double == 0)
            #expect(second["temperature"] as? Double == 1.3)
            #expect(second["presence_penalty"] as? Double == 0.4)
        }
    }

    @Test func anAnswerLeftPendingByACrashIsMarkedFailedAndCanBeRetried() async throws {
        try await EngineFixture.with { fixture in
            let conversation = try await fixture.engine.startConversation(source: .cli)
            try fixture.store.append(Message(conversationID: conversation.id, role: .user, text: "Are you there?"))
            try fixture.store.append(Message(conversationID: conversation.id, role: .assistant, text: "Yes, I", status: .pending))
            fixture.answerEverything(with: ["Yes, I am."])
            let all = await events(of: try await fixture.engine.retry(in: conversation.id))
            #expect(all.finished?.text == "Yes, I am.")
            let stored = try fixture.store.messages(in: conversation.id)
            #expect(stored.count == 2)
            #expect(stored.last?.status == .complete)
        }
    }

    @Test func aFailedTitleFallsBackToTheFirstWords() async throws {
        try await EngineFixture.with { fixture in
            fixture.server.handle(chatPath) { request in
                request.json?["stream"] as? Bool == true ? .chatStream(["fine"]) : .error(status: 500, message: "boom")
            }
            let conversation = try await fixture.engine.startConversation(source: .cli)
            let all = await events(of: try await fixture.engine.send("How do magnets work in simple everyday terms please?", in: conversation.id))
            #expect(all.title == "How do magnets work in simple…")
        }
    }

    @Test func retryWithNothingToRetryIsAClearError() async throws {
        try await EngineFixture.with { fixture in
            let conversation = try await fixture.engine.startConversation(source: .cli)
            await #expect(throws: AssistantError.nothingToRetry) { try await fixture.engine.retry(in: conversation.id) }
            // The conversation is not left marked busy by the failed attempt.
            fixture.answerEverything(with: ["ok"])
            #expect(await events(of: try await fixture.engine.send("hi", in: conversation.id)).finished != nil)
        }
    }

    @Test func titleCleaning() {
        #expect(TitleMaker.clean("Title: \"Magnets Explained.\"\nMore text") == "Magnets Explained")
        #expect(TitleMaker.clean("**Capital of France**") == "Capital of France")
        #expect(TitleMaker.clean("   \n ") == nil)
        #expect(TitleMaker.firstWords(of: "Short one") == "Short one")
    }
}
