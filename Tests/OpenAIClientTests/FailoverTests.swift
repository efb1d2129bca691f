import Foundation
import OpenAITestServer
import SibylConfig
import SibylCore
import Synchronization
import SibylTestSupport
import Testing
@testable import OpenAIClient

/// A provider with several servers (llama-servers, vLLM nodes): requests go round them, a server
/// that is down is skipped at once and checked until it answers again.
@Suite("Several servers: round-robin, failover, health checks", .timeLimit(.minutes(10)))
struct FailoverTests {
    let request = ChatRequest(model: "m", messages: [.user("hi")])

    /// Whether the first server is down.
    final class Switch: Sendable {
        private let state = Mutex(false)
        var isDown: Bool {
            get { state.withLock { $0 } }
            set { state.withLock { $0 = newValue } }
        }
    }

    /// Two scriptable servers; `down` makes the first answer 503 to everything, health checks included.
    func withTwoServers(_ body: (OpenAITestServer, OpenAITestServer, Switch) async throws -> Void) async throws {
        try await withServer { first in
            try await withServer { second in
                let down = Switch()
                for (server, name) in [(first, "first"), (second, "second")] {
                    let isFirst = name == "first"
                    server.handle(chatPath) { _ in
                        isFirst && down.isDown ? .error(status: 503, message: "overloaded", type: "server_error") : .chatCompletion("from the \(name)")
                    }
                    server.handle("/v1/models") { _ in
                        isFirst && down.isDown ? .error(status: 503, message: "overloaded", type: "server_error") : .json(#"{"object":"list","data":[]}"#)
                    }
                }
                try await body(first, second, down)
            }
        }
    }

    func client(_ urls: [String], cooldown: Duration = .milliseconds(100), retries: Int = 0) -> OpenAIClient {
        OpenAIClient(configuration: OpenAIConfiguration(
            baseURL: urls.joined(separator: ", "),
            retryPolicy: RetryPolicy(maxRetries: retries, initialDelay: .milliseconds(10), maxDelay: .milliseconds(50)),
            failoverCooldown: cooldown
        ))
    }

    @Test func aBaseURLMayNameSeveralServers() {
        let configuration = OpenAIConfiguration(baseURL: " http://a:8080/v1/, http://b:8080/v1  http://c/v1")
        #expect(configuration.endpoints == ["http://a:8080/v1", "http://b:8080/v1", "http://c/v1"])
        #expect(configuration.baseURL == "http://a:8080/v1")
        #expect(OpenAIConfiguration(baseURL: "http://127.0.0.1:8080/v1/").endpoints == ["http://127.0.0.1:8080/v1"])
    }

    @Test func theSettingTakesAListAndRefusesABadMember() throws {
        let key = ConfigKey.named("chat.base_url")
        #expect(try key?.validate("http://a:8080/v1,http://b:8080/v1").get() == "http://a:8080/v1, http://b:8080/v1")
        #expect(throws: (any Error).self) { try key?.validate("http://a:8080/v1, ftp://b/v1").get() }
        #expect(throws: (any Error).self) { try key?.validate(" , ").get() }
    }

    @Test func requestsGoRoundTheServers() async throws {
        try await withTwoServers { first, second, _ in
            let client = client([first.baseURL, second.baseURL])
            var answers: [String] = []
            for _ in 0..<4 { answers.append(try await client.complete(request).text) }
            #expect(first.requests(to: chatPath).count == 2)
            #expect(second.requests(to: chatPath).count == 2)
            #expect(Set(answers) == ["from the first", "from the second"])
        }
    }

    @Test func aServerThatFailsIsSkippedAtOnceAndCheckedUntilItIsBack() async throws {
        try await withTwoServers { first, second, down in
            down.isDown = true
            let client = client([first.baseURL, second.baseURL], cooldown: .milliseconds(100))
            // However the turn falls, every answer comes, without the retry policy (none here).
            for _ in 0..<4 { #expect(try await client.complete(request).text == "from the second") }
            #expect(first.requests(to: chatPath).count == 1, "tried once, then out of the rotation")
            #expect(!EndpointPool.shared(for: [first.baseURL, second.baseURL], cooldown: .milliseconds(100)).isUp(first.baseURL))
            #expect(second.requests(to: chatPath).count == 4)
            // Back up: the health check notices, and it is in the rotation again.
            down.isDown = false
            // The pool tells no one when it takes a server back: looked at until it has.
            let pool = EndpointPool.shared(for: [first.baseURL, second.baseURL], cooldown: .milliseconds(100))
            try await eventually("the first server back in the rotation") { pool.isUp(first.baseURL) }
            #expect(first.requests(to: "/v1/models").count >= 1, "a health check asked it")
            var answers: [String] = []
            for _ in 0..<2 { answers.append(try await client.complete(request).text) }
            #expect(answers.contains("from the first"))
        }
    }

    @Test func anUnreachableServerIsSkippedAndWhenAllAreDownTheErrorSaysSo() async throws {
        try await withServer { live in
            live.handle(chatPath) { _ in .chatCompletion("alive") }
            let closed = "http://127.0.0.1:9/v1"  // discard port: nothing listens
            #expect(try await client([closed, live.baseURL]).complete(request).text == "alive")
            #expect(try await client([closed, live.baseURL]).complete(request).text == "alive")
            let allDown = client(["http://127.0.0.1:9/v1", "http://127.0.0.1:7/v1"], retries: 1)
            do {
                _ = try await allDown.complete(request)
                Issue.record("no server is up, yet an answer came")
            } catch OpenAIError.connection(let reason) {
                #expect(reason.contains("127.0.0.1:"))
            }
        }
    }

    @Test func aRequestTheServerRefusesIsNotSentToTheOthers() async throws {
        try await withTwoServers { first, second, _ in
            first.handle(chatPath) { _ in .error(status: 400, message: "bad request") }
            second.handle(chatPath) { _ in .error(status: 400, message: "bad request") }
            let pair = client([first.baseURL, second.baseURL])
            do {
                _ = try await pair.complete(request)
                Issue.record("a refused request got an answer")
            } catch let error as OpenAIError {
                #expect(error.status == 400)
            }
            #expect(first.requests(to: chatPath).count + second.requests(to: chatPath).count == 1)
        }
    }
}
