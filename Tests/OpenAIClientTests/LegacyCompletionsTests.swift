import Foundation
import OpenAITestServer
import SibylCore
import Testing
@testable import OpenAIClient

/// Models that only have OpenAI's legacy `/completions` endpoint (gpt-3.5-turbo-instruct, the
/// base models) answer a chat: the conversation goes as a transcript prompt, the answer comes
/// back whole or streamed, as from `/chat/completions`.
@Suite("Legacy completions", .timeLimit(.minutes(10)))
struct LegacyCompletionsTests {
    let completionsPath = "/v1/completions"
    let conversation: [ChatMessage] = [.system("Be brief."), .user("Capital of France?"), .assistant("Paris."), .user("And of Italy?")]

    @Test func anInstructModelIsAskedThroughCompletionsWithTheConversationAsItsPrompt() async throws {
        try await withServer { server in
            server.enqueue(.json(object: [
                "id": "cmpl-1", "object": "text_completion", "created": 0, "model": "gpt-3.5-turbo-instruct",
                "choices": [["index": 0, "text": " Rome.", "finish_reason": "stop", "logprobs": NSNull()]],
                "usage": ["prompt_tokens": 20, "completion_tokens": 2, "total_tokens": 22],
            ]), for: completionsPath)
            let client = makeClient(server)
            let request = ChatRequest(model: "gpt-3.5-turbo-instruct", messages: conversation, sampling: Sampling(temperature: 0.2, maxTokens: 30, topP: 0.9))
            let answer = try await client.complete(request)
            #expect(answer.text == " Rome.")
            #expect(answer.usage == TokenUsage(promptTokens: 20, completionTokens: 2))
            #expect(server.requests(to: chatPath).isEmpty)
            let sent = try #require(server.requests(to: completionsPath).first?.json)
            #expect(sent["prompt"] as? String == "Be brief.\n\nUser: Capital of France?\nAssistant: Paris.\nUser: And of Italy?\nAssistant:")
            #expect(sent["stop"] as? [String] == ["\nUser:"])
            #expect(sent["max_tokens"] as? Int == 30)
            #expect(sent["top_p"] as? Double == 0.9)
            #expect(sent["messages"] == nil)
        }
    }

    @Test func aStreamedAnswerArrivesPieceByPiece() async throws {
        try await withServer { server in
            let chunks = [" Ro", "me."].map { SSE.event(#"{"id":"c","object":"text_completion","model":"gpt-3.5-turbo-instruct","choices":[{"index":0,"text":"\#($0)","finish_reason":null}]}"#) }
                + [SSE.event(#"{"id":"c","object":"text_completion","model":"gpt-3.5-turbo-instruct","choices":[{"index":0,"text":"","finish_reason":"stop"}]}"#), SSE.event("[DONE]")]
            server.enqueue(.eventStream(chunks), for: completionsPath)
            let client = makeClient(server)
            var deltas: [String] = []
            var finished: ChatCompletion?
            for try await event in client.stream(ChatRequest(model: "gpt-3.5-turbo-instruct", messages: conversation)) {
                switch event {
                case .delta(let text): deltas.append(text)
                case .finished(let whole): finished = whole
                case .usage: break
                }
            }
            #expect(deltas == [" Ro", "me."])
            #expect(finished?.text == " Rome.")
            #expect(finished?.finishReason == .stop)
            #expect(server.requests(to: completionsPath).first?.json?["stream"] as? Bool == true)
        }
    }

    @Test func onlyModelsWithoutChatGoThere() {
        for model in ["gpt-3.5-turbo-instruct", "gpt-3.5-turbo-instruct-0914", "davinci-002", "babbage-002"] {
            #expect(OpenAIClient.usesLegacyCompletions(model), "\(model)")
        }
        // Local instruct models are chat models: llama-server serves them on /chat/completions.
        for model in ["gpt-4o-mini", "gpt-3.5-turbo", "qwen2.5-coder-1.5b-instruct", "o3-mini"] {
            #expect(!OpenAIClient.usesLegacyCompletions(model), "\(model)")
        }
    }
}
