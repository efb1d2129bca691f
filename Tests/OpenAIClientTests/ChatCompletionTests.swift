import Foundation
import OpenAITestServer
import SibylCore
import Testing
@testable import OpenAIClient

@Suite("Chat completions", .timeLimit(.minutes(10)))
struct ChatCompletionTests {
    @Test func plainCompletionSendsTheRequestAndReadsUsage() async throws {
        try await withServer { server in
            server.enqueue(.chatCompletion("Paris.", model: "served-model", promptTokens: 21, completionTokens: 3), for: chatPath)
            let client = makeClient(server)
            let request = ChatRequest(
                model: "m1",
                messages: [.system("Be brief."), .user("Capital of France?"), .assistant("Paris."), .user("Sure?")],
                sampling: Sampling(temperature: 0.3, maxTokens: 50, topP: 0.9, presencePenalty: 0.5, frequencyPenalty: -0.25),
                stop: ["\n\n"]
            )
            let answer = try await client.complete(request)
            #expect(answer.text == "Paris.")
            #expect(answer.model == "served-model")
            #expect(answer.finishReason == .stop)
            #expect(answer.usage == TokenUsage(promptTokens: 21, completionTokens: 3))
            #expect(answer.timings.total > .zero)

            let sent = try #require(server.requests(to: chatPath).first)
            #expect(sent.header("Authorization") == "Bearer sk-test-0123456789abcdef")
            let json = try #require(sent.json)
            #expect(json["model"] as? String == "m1")
            #expect(json["temperature"] as? Double == 0.3)
            #expect(json["max_tokens"] as? Int == 50)
            #expect(json["top_p"] as? Double == 0.9)
            #expect(json["presence_penalty"] as? Double == 0.5)
            #expect(json["frequency_penalty"] as? Double == -0.25)
            #expect(json["stop"] as? [String] == ["\n\n"])
            #expect(json["stream"] == nil)
            let messages = try #require(json["messages"] as? [[String: Any]])
            #expect(messages.map { $0["role"] as? String } == ["system", "user", "assistant", "user"])
            #expect(messages[1]["content"] as? String == "Capital of France?")
        }
    }

    @Test func imagesGoAsContentParts() async throws {
        try await withServer { server in
            server.enqueue(.chatCompletion("A cat."), for: chatPath)
            let image = ImageInput(source: .data(Data([0x89, 0x50, 0x4E, 0x47]), mimeType: "image/png"), detail: .low)
            let message = ChatMessage(role: .user, parts: [.text("What is this?"), .image(image)])
            _ = try await makeClient(server).complete(ChatRequest(model: "vision", messages: [message]))
            let json = try #require(server.requests(to: chatPath).first?.json)
            let content = try #require((json["messages"] as? [[String: Any]])?.first?["content"] as? [[String: Any]])
            #expect(content[0]["type"] as? String == "text")
            #expect(content[0]["text"] as? String == "What is this?")
            #expect(content[1]["type"] as? String == "image_url")
            let imageURL = try #require(content[1]["image_url"] as? [String: Any])
            #expect(imageURL["url"] as? String == "data:image/png;base64,iVBORw==")
            #expect(imageURL["detail"] as? String == "low")
        }
    }

    @Test func openAIGetsMaxCompletionTokens() throws {
        let client = OpenAIClient(configuration: OpenAIConfiguration(apiKey: "k"))
        let body = client.chatBody(ChatRequest(model: "o3", messages: [.user("hi")], sampling: Sampling(maxTokens: 9)), stream: true)
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(body)) as? [String: Any]
        #expect(json?["max_completion_tokens"] as? Int == 9)
        #expect(json?["max_tokens"] == nil)
        #expect((json?["stream_options"] as? [String: Any])?["include_usage"] as? Bool == true)
    }

    @Test func streamingDeliversDeltasUsageAndTimings() async throws {
        try await withServer { server in
            server.enqueue(.chatStream(["Hel", "lo", " world"], model: "m2", promptTokens: 7, completionTokens: 3), for: chatPath)
            let (events, error) = await collect(makeClient(server).stream(ChatRequest(model: "m2", messages: [.user("hi")])))
            #expect(error == nil)
            #expect(events.deltas == ["Hel", "lo", " world"])
            #expect(events.contains(.usage(TokenUsage(promptTokens: 7, completionTokens: 3))))
            let completion = try #require(events.completion)
            #expect(completion.text == "Hello world")
            #expect(completion.finishReason == .stop)
            #expect(completion.usage?.totalTokens == 10)
            #expect(completion.timings.timeToFirstToken != nil)
            #expect(completion.timings.timeToFirstToken! <= completion.timings.total)
            let json = try #require(server.requests(to: chatPath).first?.json)
            #expect(json["stream"] as? Bool == true)
            #expect((json["stream_options"] as? [String: Any])?["include_usage"] as? Bool == true)
            #expect(server.requests(to: chatPath).first?.header("Accept") == "text/event-stream")
        }
    }

    @Test func streamEdgeCasesCRLFCommentsMultiLineDataAndUsageChunk() async throws {
        try await withServer { server in
            let chunks = SSE.chatChunks(["A", "é", "日本"], promptTokens: 4, completionTokens: 3)
            var pieces: [String] = [": connected\r\n\r\n", "retry: 1000\r\n\r\n"]
            for (index, chunk) in chunks.enumerated() {
                if index == 2 {
                    // The same JSON spread over two data lines: joined with "\n", still valid JSON.
                    let middle = chunk.index(chunk.startIndex, offsetBy: chunk.count / 2)
                    let splitAt = chunk[middle...].firstIndex(of: ",") ?? middle
                    pieces.append("data: \(chunk[..<splitAt])\r\ndata: \(chunk[splitAt...])\r\n\r\n")
                } else {
                    pieces.append("data: \(chunk)\r\n\r\n")
                }
                pieces.append(": keep-alive\r\n\r\n")
            }
            pieces.append("data: [DONE]\r\n\r\n")
            // Split the bytes at awkward places: inside CRLF pairs and inside multi-byte characters.
            let bytes = Data(pieces.joined().utf8)
            var parts: [Data] = []
            var start = 0
            for size in [3, 17, 1, 50, 2, 9] where start < bytes.count {
                let end = min(bytes.count, start + size)
                parts.append(bytes[start..<end])
                start = end
            }
            while start < bytes.count {
                let end = min(bytes.count, start + 41)
                parts.append(bytes[start..<end])
                start = end
            }
            server.enqueue(.stream(status: 200, headers: [("Content-Type", "text/event-stream")], chunks: parts, pause: .zero, dropConnection: false), for: chatPath)
            let (events, error) = await collect(makeClient(server).stream(ChatRequest(model: "m", messages: [.user("hi")])))
            #expect(error == nil)
            #expect(events.completion?.text == "Aé日本")
            #expect(events.completion?.usage == TokenUsage(promptTokens: 4, completionTokens: 3))
        }
    }

    @Test func aStreamThatEndsWithoutDoneButWithFinishReasonIsComplete() async throws {
        try await withServer { server in
            let pieces = SSE.chatChunks(["ok"]).map { SSE.event($0) }
            server.enqueue(.eventStream(pieces), for: chatPath)
            let (events, error) = await collect(makeClient(server).stream(ChatRequest(model: "m", messages: [.user("hi")])))
            #expect(error == nil)
            #expect(events.completion?.text == "ok")
        }
    }

    @Test func aStreamThatStopsCleanlyMidAnswerIsInterrupted() async throws {
        try await withServer { server in
            let pieces = SSE.chatChunks(["par", "tial"]).prefix(3).map { SSE.event($0) }
            server.enqueue(.eventStream(Array(pieces)), for: chatPath)
            let (_, error) = await collect(makeClient(server).stream(ChatRequest(model: "m", messages: [.user("hi")])))
            guard case .streamInterrupted(let partial, _)? = error as? OpenAIError else {
                Issue.record("expected streamInterrupted, got \(String(describing: error))")
                return
            }
            #expect(partial == "partial")
        }
    }
}
