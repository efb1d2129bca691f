import Foundation
import OpenAIClient
import OpenAITestServer
import SibylCore
import Storage
@testable import Assistant

let chatPath = "/v1/chat/completions"

/// A test server, a store and an engine wired together.
struct EngineFixture {
    let server: OpenAITestServer
    let store: ConversationStore
    let engine: ConversationEngine

    /// Runs `body` with a fresh fixture (the engine keeping its conversations through `storage`),
    /// and stops its server afterwards whatever happens, awaiting the stop.
    static func with<T>(
        options: EngineOptions = EngineOptions(model: "test-model", titles: .model),
        storage: (ConversationStore) -> any ConversationStorage = { QueuedConversationStore($0) },
        _ body: (EngineFixture) async throws -> T
    ) async throws -> T {
        try await OpenAITestServer.with { server in
            let client = OpenAIClient(configuration: OpenAIConfiguration(
                baseURL: server.baseURL,
                apiKey: "sk-test-engine-key-123456",
                retryPolicy: RetryPolicy(maxRetries: 0)
            ))
            let store = try ConversationStore.inMemory()
            return try await body(EngineFixture(server: server, store: store, engine: ConversationEngine(store: storage(store), chatModel: client, options: options)))
        }
    }

    /// Answers streamed requests with `answer` and title requests (not streamed) with `title`.
    func answerEverything(with answer: [String], title: String = "A Fine Title") {
        server.handle(chatPath) { request in
            request.json?["stream"] as? Bool == true ? .chatStream(answer) : .chatCompletion(title)
        }
    }

    /// The chat requests that were streamed (answers, not titles).
    var answerRequests: [[String: Any]] {
        server.requests(to: chatPath).compactMap(\.json).filter { $0["stream"] as? Bool == true }
    }
}

/// All events of a turn.
func events(of turn: AssistantTurn) async -> [AssistantEvent] {
    var all: [AssistantEvent] = []
    for await event in turn.events { all.append(event) }
    return all
}

extension Array where Element == AssistantEvent {
    var text: String {
        compactMap { if case .delta(let text) = $0 { text } else { nil } }.joined()
    }

    var finished: Message? {
        for event in self { if case .finished(let message) = event { return message } }
        return nil
    }

    var failed: (Message, String)? {
        for event in self { if case .failed(let message, let error) = event { return (message, error.text) } }
        return nil
    }

    var failure: AnswerFailure? {
        for event in self { if case .failed(_, let failure) = event { return failure } }
        return nil
    }

    var cancelled: Message? {
        for event in self { if case .cancelled(let message) = event { return message } }
        return nil
    }

    var title: String? {
        for event in self { if case .titled(let title) = event { return title } }
        return nil
    }
}

extension [String: Any] {
    /// The roles and texts of a chat request's messages.
    var sentMessages: [(role: String, content: String)] {
        ((self["messages"] as? [[String: Any]]) ?? []).map { ($0["role"] as? String ?? "", $0["content"] as? String ?? "") }
    }
}
