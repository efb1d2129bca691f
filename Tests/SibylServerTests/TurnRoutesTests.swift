import Assistant
import Foundation
import HummingbirdTesting
import OpenAITestServer
import SibylApp
import SibylTestSupport
import Testing
@testable import SibylServer

@Suite("Questions and answers over the API", .timeLimit(.minutes(10)))
struct TurnRoutesTests {
    /// Starts a conversation and returns its id.
    static func conversation(_ client: any TestClientProtocol) async throws -> String {
        try await client.execute(uri: "/api/v1/conversations", method: .post, headers: jsonHeaders, body: jsonBody([:])) { response in
            try #require(response.object["id"] as? String)
        }
    }

    @Test func aTurnStreamsItsEventsAndIsSaved() async throws {
        try await withServerFixture { fixture in
            fixture.model.handle(chatPath) { _ in .chatStream(["The capital ", "is Paris."]) }
            let id = try await Self.conversation(fixture.client)
            try await fixture.client.execute(uri: "/api/v1/conversations/\(id)/turns", method: .post, headers: jsonHeaders, body: jsonBody(["text": "Capital of France?"])) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("text/event-stream") == true)
                let all = events(in: response.text)
                #expect(all.map(\.name) == ["started", "delta", "delta", "usage", "finished", "titled"])
                #expect(all.filter { $0.name == "delta" }.compactMap { $0.json?["text"] as? String }.joined() == "The capital is Paris.")
                let finished = try #require(all.first { $0.name == "finished" }?.json?["message"] as? [String: Any])
                #expect(finished["status"] as? String == "complete")
                #expect(finished["text"] as? String == "The capital is Paris.")
            }
            try await fixture.client.execute(uri: "/api/v1/conversations/\(id)/messages", method: .get) { response in
                #expect(response.array.map { $0["role"] as? String } == ["user", "assistant"])
                #expect(response.array.last?["status"] as? String == "complete")
            }
            try await fixture.client.execute(uri: "/api/v1/conversations/\(id)", method: .get) { response in
                #expect((response.object["conversation"] as? [String: Any])?["title"] as? String == "Capital of France?")
            }
        }
    }

    @Test func aTurnCanBeAskedForWholeAndRetried() async throws {
        try await withServerFixture { fixture in
            fixture.model.enqueue(.chatStream(["Partial", " answer"], dropAfter: 2), for: chatPath)
            let id = try await Self.conversation(fixture.client)
            try await fixture.client.execute(uri: "/api/v1/conversations/\(id)/turns", method: .post, headers: jsonHeaders, body: jsonBody(["text": "Tell me", "stream": false])) { response in
                #expect(response.status == .ok)
                #expect(response.object["status"] as? String == "failed")
                #expect(response.object["answer"] as? String == "Partial")
            }
            fixture.model.handle(chatPath) { _ in .chatStream(["Whole answer."]) }
            try await fixture.client.execute(uri: "/api/v1/conversations/\(id)/retry", method: .post, headers: jsonHeaders, body: jsonBody(["stream": false])) { response in
                #expect(response.object["status"] as? String == "complete")
                #expect(response.object["answer"] as? String == "Whole answer.")
            }
            try await fixture.client.execute(uri: "/api/v1/conversations/\(id)/messages", method: .get) { response in
                #expect(response.array.count == 2, "the retry replaced the failed answer")
            }
        }
    }

    @Test func badTurnsAreRefusedClearly() async throws {
        try await withServerFixture { fixture in
            let id = try await Self.conversation(fixture.client)
            try await fixture.client.execute(uri: "/api/v1/conversations/\(id)/turns", method: .post, headers: jsonHeaders, body: jsonBody(["text": "  "])) { response in
                #expect(response.status == .badRequest)
            }
            try await fixture.client.execute(uri: "/api/v1/conversations/\(UUID().uuidString)/turns", method: .post, headers: jsonHeaders, body: jsonBody(["text": "hi"])) { response in
                #expect(response.status == .notFound)
            }
            try await fixture.client.execute(uri: "/api/v1/conversations/\(id)/turns", method: .post, headers: jsonHeaders, body: jsonBody(["text": "hi", "attachments": [["data": "bm90IGFuIGltYWdl"]]])) { response in
                #expect(response.status == .unsupportedMediaType)
            }
            try await fixture.client.execute(uri: "/api/v1/conversations/\(id)/retry", method: .post, headers: jsonHeaders, body: jsonBody([:])) { response in
                #expect(response.status == .conflict)
                #expect(response.errorCode == "nothing_to_retry")
            }
            try await fixture.client.execute(uri: "/api/v1/conversations/\(id)/turns/current", method: .delete) { response in
                #expect(response.status == .notFound)
            }
            await #expect(try fixture.runtime.conversations.messages(in: UUID(uuidString: id)!).isEmpty, "nothing half-written")
        }
    }

    @Test func cancellingMidStreamKeepsThePartialAnswer() async throws {
        try await withServerFixture(testing: .live) { fixture in
            fixture.model.handle(chatPath) { _ in .chatStream(Array(repeating: "la ", count: 200), pause: .milliseconds(50)) }
            let id = try await Self.conversation(fixture.client)
            let port = try #require(fixture.client.port)
            async let streamed = request(port: port, "POST", "/api/v1/conversations/\(id)/turns", json: ["text": "Sing"]).text
            let conversation = UUID(uuidString: id)!
            // Cancel once some of the answer has been written (and saved: every second).
            try await eventually { try await fixture.runtime.conversations.messages(in: conversation).last?.text.hasPrefix("la la") == true }
            try await fixture.client.execute(uri: "/api/v1/conversations/\(id)/turns/current", method: .delete) { response in
                #expect(response.status == .ok)
                #expect(response.object["status"] as? String == "cancelled")
            }
            let all = events(in: try await streamed)
            #expect(all.last?.name == "cancelled")
            let saved = try await #require(try fixture.runtime.conversations.messages(in: conversation).last)
            #expect(saved.status == .cancelled)
            #expect(saved.text.hasPrefix("la la"))
            #expect(saved.text.count < 600)
        }
    }

    @Test func aClientMayHaveOnlySoManyAnswersUnderWay() async throws {
        try await withServerFixture(limits: ServerLimits(turnsPerClient: 1), testing: .live) { fixture in
            fixture.model.handle(chatPath) { _ in .chatStream(Array(repeating: "la ", count: 100), pause: .milliseconds(20)) }
            let first = try await Self.conversation(fixture.client)
            let second = try await Self.conversation(fixture.client)
            let port = try #require(fixture.client.port)
            async let streamed = request(port: port, "POST", "/api/v1/conversations/\(first)/turns", json: ["text": "one"]).text
            try await eventually { fixture.runtime.conversations.answerUnderWay(in: UUID(uuidString: first)!) != nil }
            // These requests, too, go on connections of their own with a long ceiling: the test
            // framework's client gives up after 20 s, and a stalled machine took longer.
            let refused = try await request(port: port, "POST", "/api/v1/conversations/\(second)/turns", json: ["text": "two"])
            #expect(refused.status == 429)
            #expect(errorCode(in: refused.text) == "too_many_turns")
            #expect(refused.headers["retry-after"] != nil)
            #expect(events(in: try await streamed).contains { $0.name == "finished" })
            // The slot is free again once the answer has ended.
            try await eventually { fixture.runtime.conversations.answerUnderWay(in: UUID(uuidString: first)!) == nil }
            let answered = try await request(port: port, "POST", "/api/v1/conversations/\(second)/turns", json: ["text": "two", "stream": false])
            let object = (try? JSONSerialization.jsonObject(with: Data(answered.text.utf8))) as? [String: Any]
            #expect(object?["status"] as? String == "complete")
        }
    }

    @Test func aBusyConversationSaysSo() async throws {
        try await withServerFixture(testing: .live) { fixture in
            fixture.model.handle(chatPath) { _ in .chatStream(Array(repeating: "la ", count: 50), pause: .milliseconds(20)) }
            let id = try await Self.conversation(fixture.client)
            let port = try #require(fixture.client.port)
            async let streamed = request(port: port, "POST", "/api/v1/conversations/\(id)/turns", json: ["text": "one"]).text
            try await eventually { fixture.runtime.conversations.answerUnderWay(in: UUID(uuidString: id)!) != nil }
            // On connections of their own with a long ceiling: the test framework's client gives up
            // after 20 s without a byte, and a loaded machine has taken longer.
            let busy = try await request(port: port, "POST", "/api/v1/conversations/\(id)/turns", json: ["text": "two"])
            #expect(busy.status == 409)
            #expect(errorCode(in: busy.text) == "busy")
            // Someone else can follow the answer under way, from its start.
            let followed = events(in: try await request(port: port, "GET", "/api/v1/conversations/\(id)/turns/current").text)
            #expect(followed.first?.name == "started")
            #expect(followed.last?.name == "finished" || followed.last?.name == "titled")
            _ = try await streamed
        }
    }
}
