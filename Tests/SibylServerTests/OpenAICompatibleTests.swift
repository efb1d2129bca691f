import Foundation
import HummingbirdTesting
import LocalEngines
import Testing
@testable import SibylServer

@Suite("OpenAI-compatible endpoints", .timeLimit(.minutes(10)))
struct OpenAICompatibleTests {
    @Test func personasAreModels() async throws {
        try await withServerFixture { fixture in
            try await fixture.client.execute(uri: "/v1/models", method: .get) { response in
                let ids = ((response.object["data"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
                #expect(ids.contains("sibyl-assistant"))
                #expect(ids.contains("sibyl-concise-docs"))
                #expect(ids.contains("sibyl-embeddings"))
                #expect(response.object["object"] as? String == "list")
            }
            try await fixture.client.execute(uri: "/v1/models/sibyl-concise", method: .get) { response in
                #expect(response.object["owned_by"] as? String == "sibyl")
            }
            try await fixture.client.execute(uri: "/v1/models/gpt-9", method: .get) { response in
                #expect(response.status == .notFound)
                #expect((response.object["error"] as? [String: Any])?["code"] as? String == "model_not_found")
            }
        }
    }

    @Test func aChatCompletionUsesThePersonaAndTheClientsMessages() async throws {
        try await withServerFixture { fixture in
            fixture.model.handle(chatPath) { _ in .chatStream(["Paris", "."], promptTokens: 30, completionTokens: 2) }
            let body: [String: Any] = [
                "model": "sibyl-concise",
                "messages": [["role": "system", "content": "Be formal."], ["role": "user", "content": "Capital of France?"]],
                "temperature": 0, "top_p": 0.5, "presence_penalty": 0.25, "frequency_penalty": 1.5,
            ]
            try await fixture.client.execute(uri: "/v1/chat/completions", method: .post, headers: jsonHeaders, body: jsonBody(body)) { response in
                #expect(response.status == .ok)
                #expect(response.object["object"] as? String == "chat.completion")
                #expect(response.object["model"] as? String == "sibyl-concise")
                let choice = try #require((response.object["choices"] as? [[String: Any]])?.first)
                #expect((choice["message"] as? [String: Any])?["content"] as? String == "Paris.")
                #expect(choice["finish_reason"] as? String == "stop")
                #expect((response.object["usage"] as? [String: Any])?["total_tokens"] as? Int == 32)
            }
            let sent = try #require(fixture.model.requests(to: chatPath).compactMap(\.json).last)
            let messages = try #require(sent["messages"] as? [[String: Any]])
            #expect(messages.count == 2, "one system prompt: the persona's, with the client's added")
            #expect((messages.first?["content"] as? String)?.contains("one short sentence") == true)
            #expect((messages.first?["content"] as? String)?.hasSuffix("Be formal.") == true)
            #expect(sent["temperature"] as? Double == 0)
            #expect(sent["top_p"] as? Double == 0.5)
            #expect(sent["presence_penalty"] as? Double == 0.25)
            #expect(sent["frequency_penalty"] as? Double == 1.5)
        }
    }

    @Test func aStreamedCompletionIsFramedAsOpenAIDoesWithUsageLast() async throws {
        try await withServerFixture { fixture in
            fixture.model.handle(chatPath) { _ in .chatStream(["Hel", "lo"], promptTokens: 12, completionTokens: 2) }
            let body: [String: Any] = [
                "model": "sibyl-assistant", "stream": true, "stream_options": ["include_usage": true],
                "messages": [["role": "user", "content": [["type": "text", "text": "Say hello"]]]],
            ]
            try await fixture.client.execute(uri: "/v1/chat/completions", method: .post, headers: jsonHeaders, body: jsonBody(body)) { response in
                #expect(response.headers[.contentType]?.hasPrefix("text/event-stream") == true)
                let all = events(in: response.text)
                #expect(all.last?.data == "[DONE]")
                let chunks = all.dropLast().compactMap(\.json)
                #expect(Set(chunks.compactMap { $0["id"] as? String }).count == 1)
                let text = chunks.compactMap { (($0["choices"] as? [[String: Any]])?.first?["delta"] as? [String: Any])?["content"] as? String }.joined()
                #expect(text == "Hello")
                let usage = try #require(chunks.last)
                #expect((usage["choices"] as? [Any])?.isEmpty == true)
                #expect((usage["usage"] as? [String: Any])?["completion_tokens"] as? Int == 2)
                #expect(chunks.dropLast().allSatisfy { $0["usage"] is NSNull })
                #expect(chunks.contains { (($0["choices"] as? [[String: Any]])?.first?["finish_reason"] as? String) == "stop" })
            }
        }
    }

    @Test func badRequestsGetOpenAIErrors() async throws {
        try await withServerFixture { fixture in
            let hi = [["role": "user", "content": "hi"]]
            for (parameter, value) in [("top_p", 1.5), ("presence_penalty", -2.5), ("frequency_penalty", 3), ("temperature", 2.1)] {
                try await fixture.client.execute(uri: "/v1/chat/completions", method: .post, headers: jsonHeaders, body: jsonBody(["model": "sibyl-assistant", "messages": hi, parameter: value])) { response in
                    #expect(response.status == .badRequest)
                    #expect((response.object["error"] as? [String: Any])?["param"] as? String == parameter)
                }
            }
            let cases: [([String: Any], Int, String?)] = [
                (["model": "gpt-4o", "messages": [["role": "user", "content": "hi"]]], 404, "model_not_found"),
                (["model": "sibyl-assistant", "messages": []], 400, "invalid_value"),
                (["model": "sibyl-assistant", "messages": [["role": "tool", "content": "x"]]], 400, "invalid_value"),
                (["model": "sibyl-assistant", "messages": [["role": "user", "content": "hi"]], "n": 3], 400, "invalid_value"),
                (["messages": [["role": "user", "content": "hi"]]], 400, "invalid_json"),
            ]
            for (body, status, code) in cases {
                try await fixture.client.execute(uri: "/v1/chat/completions", method: .post, headers: jsonHeaders, body: jsonBody(body)) { response in
                    #expect(response.status.code == status, "\(body)")
                    let error = response.object["error"] as? [String: Any]
                    #expect(error?["code"] as? String == code)
                    #expect(error?["type"] as? String == "invalid_request_error")
                    #expect(error?["message"] is String)
                }
            }
            #expect(fixture.model.requests(to: chatPath).isEmpty)
        }
    }
}
