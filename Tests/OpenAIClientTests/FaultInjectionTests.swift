import Foundation
import OpenAITestServer
import SibylCore
import SibylTestSupport
import Testing
@testable import OpenAIClient

@Suite("Faults: errors, retries, timeouts, dropped connections", .timeLimit(.minutes(10)))
struct FaultInjectionTests {
    let request = ChatRequest(model: "m", messages: [.user("hi")])

    private func expectAPIError(_ error: (any Error)?, status: Int?, code: String?, message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard case .api(let gotStatus, let detail, _)? = error as? OpenAIError else {
            Issue.record("expected an API error, got \(String(describing: error))", sourceLocation: sourceLocation)
            return
        }
        #expect(gotStatus == status, sourceLocation: sourceLocation)
        #expect(detail.code == code, sourceLocation: sourceLocation)
        #expect(detail.message == message, sourceLocation: sourceLocation)
    }

    @Test func unauthorizedPlainIsTypedAndNotRetried() async throws {
        try await withServer { server in
            server.handle(chatPath) { _ in .error(status: 401, message: "Incorrect API key provided: sk-wrong.", code: "invalid_api_key") }
            let error = await #expect(throws: OpenAIError.self) { try await makeClient(server).complete(request) }
            expectAPIError(error, status: 401, code: "invalid_api_key", message: "Incorrect API key provided: sk-wrong.")
            #expect(server.requests(to: chatPath).count == 1)
            #expect(error?.recoverySuggestion?.contains("OPENAI_API_KEY") == true)
            #expect(error?.remedy == .setKey(name: "openai"), "the shells turn this into their own advice")
        }
    }

    @Test func unauthorizedStreamingIsTyped() async throws {
        try await withServer { server in
            server.handle(chatPath) { _ in .error(status: 401, message: "Missing bearer authentication in header", code: "invalid_api_key") }
            let (events, error) = await collect(makeClient(server, apiKey: nil).stream(request))
            #expect(events.isEmpty)
            expectAPIError(error, status: 401, code: "invalid_api_key", message: "Missing bearer authentication in header")
            #expect(server.requests(to: chatPath).first?.header("Authorization") == nil)
        }
    }

    @Test func unknownModelStreamingIsA404WithTheServersMessage() async throws {
        try await withServer { server in
            server.enqueue(.error(status: 404, message: "The model `nope` does not exist or you do not have access to it.", code: "model_not_found"), for: chatPath)
            let (_, error) = await collect(makeClient(server).stream(ChatRequest(model: "nope", messages: [.user("hi")])))
            expectAPIError(error, status: 404, code: "model_not_found", message: "The model `nope` does not exist or you do not have access to it.")
            #expect(server.requests(to: chatPath).count == 1)
        }
    }

    @Test func rateLimitHonoursRetryAfterThenSucceeds() async throws {
        try await withServer { server in
            server.enqueue(.error(status: 429, message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded", headers: [("retry-after", "1")]), for: chatPath)
            server.enqueue(.chatStream(["fine"]), for: chatPath)
            let (events, error) = await collect(makeClient(server).stream(request))
            #expect(error == nil)
            #expect(events.completion?.text == "fine")
            let requests = server.requests(to: chatPath)
            #expect(requests.count == 2)
            // What the client controls: it waited at least what the header asked. How much longer a
            // busy machine takes is not the client's doing (the suite's time limit catches a hang).
            let waited = requests[1].receivedAt - requests[0].receivedAt
            #expect(waited >= .seconds(1))
        }
    }

    @Test func rateLimitRetryAfterMilliseconds() async throws {
        try await withServer { server in
            server.enqueue(.error(status: 429, message: "slow down", headers: [("retry-after-ms", "300")]), for: chatPath)
            server.enqueue(.error(status: 429, message: "slow down", headers: [("retry-after-ms", "300")]), for: chatPath)
            server.enqueue(.chatCompletion("ok"), for: chatPath)
            let answer = try await makeClient(server).complete(request)
            #expect(answer.text == "ok")
            let requests = server.requests(to: chatPath)
            #expect(requests.count == 3)
            #expect(requests[1].receivedAt - requests[0].receivedAt >= .milliseconds(300))
            #expect(requests[2].receivedAt - requests[1].receivedAt >= .milliseconds(300))
        }
    }

    @Test func retriesStopAfterTheLimit() async throws {
        try await withServer { server in
            server.handle(chatPath) { _ in .error(status: 429, message: "Rate limit reached", headers: [("retry-after-ms", "10")]) }
            let error = await #expect(throws: OpenAIError.self) { try await makeClient(server, retries: 2).complete(request) }
            #expect(error?.status == 429)
            #expect(server.requests(to: chatPath).count == 3)
        }
    }

    @Test func insufficientQuotaIsNeverRetried() async throws {
        try await withServer { server in
            server.handle(chatPath) { _ in .error(status: 429, message: "You exceeded your current quota.", type: "insufficient_quota", code: "insufficient_quota") }
            let error = await #expect(throws: OpenAIError.self) { try await makeClient(server).complete(request) }
            #expect(error?.code == "insufficient_quota")
            #expect(server.requests(to: chatPath).count == 1)
            #expect(error?.recoverySuggestion?.contains("credit") == true)
        }
    }

    @Test func serverErrorThenSuccess() async throws {
        try await withServer { server in
            server.enqueue(.error(status: 500, message: "The server had an error while processing your request.", type: "server_error"), for: chatPath)
            server.enqueue(.chatStream(["recovered"]), for: chatPath)
            let (events, error) = await collect(makeClient(server).stream(request))
            #expect(error == nil)
            #expect(events.completion?.text == "recovered")
            #expect(server.requests(to: chatPath).count == 2)
        }
    }

    @Test func serverCanForbidARetry() async throws {
        try await withServer { server in
            server.handle(chatPath) { _ in .error(status: 503, message: "down", headers: [("x-should-retry", "false")]) }
            _ = await #expect(throws: OpenAIError.self) { try await makeClient(server).complete(request) }
            #expect(server.requests(to: chatPath).count == 1)
        }
    }

    @Test func errorEventInsideTheStream() async throws {
        try await withServer { server in
            let first = SSE.chatChunks(["Hal"]).prefix(2).map { SSE.event($0) }
            let failure = SSE.event(#"{"error":{"message":"context size exceeded","type":"exceed_context_size_error","code":400}}"#)
            server.enqueue(.eventStream(first + [failure]), for: chatPath)
            let (events, error) = await collect(makeClient(server).stream(request))
            #expect(events.deltas == ["Hal"])
            expectAPIError(error, status: nil, code: "400", message: "context size exceeded")
            #expect(server.requests(to: chatPath).count == 1)
        }
    }

    @Test func connectionDroppedMidStreamKeepsThePartialAnswer() async throws {
        try await withServer { server in
            server.enqueue(.chatStream(["Hello", " wor", "ld"], dropAfter: 3), for: chatPath)
            let (events, error) = await collect(makeClient(server).stream(request))
            #expect(events.deltas == ["Hello", " wor"])
            guard case .streamInterrupted(let partial, _)? = error as? OpenAIError else {
                Issue.record("expected streamInterrupted, got \(String(describing: error))")
                return
            }
            #expect(partial == "Hello wor")
            // Once an answer has begun, retrying would duplicate it: exactly one request.
            #expect(server.requests(to: chatPath).count == 1)
        }
    }

    @Test func slowFirstByteTimesOut() async throws {
        try await withServer { server in
            server.handle(chatPath) { _ in .delayed(.seconds(6), .chatStream(["late"])) }
            let started = ContinuousClock.now
            let (events, error) = await collect(makeClient(server, retries: 0, readTimeout: .milliseconds(500)).stream(request))
            guard case .timeout? = error as? OpenAIError else {
                Issue.record("expected a timeout, got \(String(describing: error))")
                return
            }
            // The first byte would come after 6 s: the 0.5 s read timeout ended the wait before it.
            // That is what the timeout error and the missing answer say; a clock would only measure
            // how busy the machine was (7.4 s once, on a loaded one).
            #expect(events.isEmpty)
            #expect(ContinuousClock.now - started >= .milliseconds(500), "it waited the read timeout")
        }
    }

    @Test func timeoutsAreRetried() async throws {
        try await withServer { server in
            // The first answer never comes in time; the retry's comes at once. The read timeout is
            // long enough for a loaded machine to serve the retry: 2 s and then 8 s were not, when
            // the whole suite stalled for most of a minute on a busy 2-core machine.
            server.enqueue(.delayed(.seconds(600), .chatCompletion("late")), for: chatPath)
            server.enqueue(.chatCompletion("prompt"), for: chatPath)
            let answer = try await makeClient(server, retries: 1, readTimeout: .seconds(30)).complete(request)
            #expect(answer.text == "prompt")
            #expect(server.requests(to: chatPath).count == 2)
        }
    }

    @Test func connectionRefusedIsAConnectionErrorAfterRetries() async throws {
        // A port held by a socket that is bound but not listening refuses every connection, and no
        // other test's server can take it meanwhile (a stopped server's port once was, by the
        // time the retry came).
        let held = try ClosedPort()
        defer { held.release() }
        let client = OpenAIClient(configuration: OpenAIConfiguration(
            baseURL: "http://127.0.0.1:\(held.port)/v1", apiKey: "sk-test-0123456789abcdef",
            retryPolicy: RetryPolicy(maxRetries: 1, initialDelay: .milliseconds(10), maxDelay: .milliseconds(50))
        ))
        let error = await #expect(throws: OpenAIError.self) { try await client.complete(request) }
        guard case .connection? = error else {
            Issue.record("expected a connection error, got \(String(describing: error))")
            return
        }
        #expect(error?.recoverySuggestion?.contains("base URL") == true)
    }

    @Test func cancellationStopsAStreamAtOnce() async throws {
        try await withServer { server in
            // 50 deltas, held after the first until the consumer has stopped: had the cancel not
            // stopped the stream at once, the consumer would wait for the rest and never end.
            let stopped = Gate()
            let deltas = Array(repeating: "tick ", count: 50)
            server.enqueue(.chatStream(deltas, holdingAfter: 1, until: { await stopped.pass() }), for: chatPath)
            let client = makeClient(server)
            let (firstDelta, firstContinuation) = AsyncStream<Void>.makeStream()
            let consumer = Task {
                // A stream that fails before its first delta must not leave the wait below hanging.
                defer { firstContinuation.finish() }
                var count = 0
                for try await event in client.stream(request) {
                    if case .delta = event {
                        count += 1
                        firstContinuation.yield()
                    }
                }
                return count
            }
            for await _ in firstDelta { break }
            consumer.cancel()
            // The ceiling is a guard against a hang (a stream that goes on after the cancel), no bound on the client.
            let count = try await withTeardown {
                try await waitFor("the stream to stop after the cancel") { (try? await consumer.value) ?? 0 }
            } teardown: {
                stopped.open()
            }
            #expect(count <= 1, "no delta after the cancel")
        }
    }

    @Test func errorsNeverShowTheKey() async throws {
        try await withServer { server in
            server.handle(chatPath) { request in
                .error(status: 401, message: "Incorrect API key provided: \(request.header("Authorization") ?? "")")
            }
            let error = await #expect(throws: OpenAIError.self) { try await makeClient(server).complete(request) }
            let shown = error?.localizedDescription ?? ""
            #expect(!shown.contains("0123456789abcdef"))
            #expect(shown.contains("[redacted]"))
        }
    }
}
