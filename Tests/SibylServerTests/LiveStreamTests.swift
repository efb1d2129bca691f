import AsyncHTTPClient
import Assistant
import Foundation
import Hummingbird
import NIOCore
import OpenAITestServer
import ServiceLifecycle
import SibylApp
import SibylTestSupport
import Testing
@testable import SibylServer

/// A real server on a port, a real HTTP client: what happens when the client or the server goes
/// away in the middle of an answer.
@Suite("Streams when a client or the server goes away", .timeLimit(.minutes(10)))
struct LiveStreamTests {
    /// Runs the server as `sibyl serve` does (without signal handlers), on a free port.
    static func withLiveServer(
        environment extra: [String: String] = [:], _ body: @Sendable (_ port: Int, _ runtime: SibylRuntime, _ model: OpenAITestServer, _ group: ServiceGroup) async throws -> Void
    ) async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-live-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: home) }
        try await OpenAITestServer.with { model in
            var environment = ["SIBYL_HOME": home.path, "OPENAI_BASE_URL": model.baseURL, "SIBYL_MAX_RETRIES": "0", "SIBYL_TITLES": "first-words"]
            environment.merge(extra) { $1 }
            let runtime = try SibylRuntime(environment: environment)
            let server = SibylServer(runtime: runtime, configuration: .init(port: 0))
            let (ports, portContinuation) = AsyncStream<Int>.makeStream()
            let group = server.serviceGroup { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            }
            let running = Task { try await group.run() }
            try await withTeardown {
                var port = 0
                for await value in ports { port = value }
                try await body(port, runtime, model, group)
            } teardown: {
                await group.triggerGracefulShutdown()
                _ = await running.result
                await runtime.shutdown()
            }
        }
    }

    static func startConversation(port: Int) async throws -> UUID {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/api/v1/conversations")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: "{}"))
        let response = try await patientHTTP.execute(request, timeout: .seconds(600))
        let body = try await response.body.collect(upTo: 1 << 20)
        let object = try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any]
        return try #require(UUID(uuidString: object?["id"] as? String ?? ""))
    }

    static func turnRequest(port: Int, conversation: UUID, text: String) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/api/v1/conversations/\(conversation.uuidString.lowercased())/turns")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: "{\"text\": \"\(text)\"}"))
        return request
    }

    @Test func aClientThatDropsMidStreamFindsTheWholeAnswerSaved() async throws {
        try await Self.withLiveServer { port, runtime, model, _ in
            model.handle(chatPath) { _ in .chatStream(Array(repeating: "word ", count: 60), pause: .milliseconds(20)) }
            let conversation = try await Self.startConversation(port: port)
            let reading = Task {
                let response = try await patientHTTP.execute(Self.turnRequest(port: port, conversation: conversation, text: "Talk"), timeout: .seconds(600))
                var received = ""
                for try await chunk in response.body {
                    received += String(buffer: chunk)
                    // Leave as soon as the answer has begun.
                    if received.contains("event: delta") { return received }
                }
                return received
            }
            #expect(try await reading.value.contains("event: started"))
            reading.cancel()
            // The answer went on without the client and was saved whole.
            try await eventually { try await runtime.conversations.messages(in: conversation).last?.status == .complete }
            let saved = try await #require(try runtime.conversations.messages(in: conversation).last)
            #expect(saved.text == String(repeating: "word ", count: 60))
        }
    }

    @Test func shuttingDownMidStreamSavesTheAnswerAsCancelledAndEndsTheStream() async throws {
        try await Self.withLiveServer(environment: ["SIBYL_SERVE_SHUTDOWN_GRACE": "0"]) { port, runtime, model, group in
            model.handle(chatPath) { _ in .chatStream(Array(repeating: "la ", count: 1000), pause: .milliseconds(20)) }
            let conversation = try await Self.startConversation(port: port)
            let reading = Task {
                let response = try await patientHTTP.execute(Self.turnRequest(port: port, conversation: conversation, text: "Sing"), timeout: .seconds(600))
                var received = ""
                for try await chunk in response.body { received += String(buffer: chunk) }
                return received
            }
            try await eventually { try await runtime.conversations.messages(in: conversation).last?.text.hasPrefix("la la") == true }
            await group.triggerGracefulShutdown()
            let received = try await reading.value
            #expect(events(in: received).last?.name == "cancelled", "the client is told, and its stream ends")
            let saved = try await #require(try runtime.conversations.messages(in: conversation).last)
            #expect(saved.status == .cancelled)
            #expect(saved.text.hasPrefix("la la"))
        }
    }
}
