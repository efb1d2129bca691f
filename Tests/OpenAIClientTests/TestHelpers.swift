import Foundation
import OpenAITestServer
import SibylCore
@testable import OpenAIClient

/// Runs a test body against a fresh scriptable server and stops it afterwards.
func withServer<T>(_ body: (OpenAITestServer) async throws -> T) async throws -> T {
    let server = try await OpenAITestServer.start()
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}

/// A client for the test server with fast retries, so fault tests do not wait for real backoff.
func makeClient(
    _ server: OpenAITestServer,
    apiKey: String? = "sk-test-0123456789abcdef",
    retries: Int = 2,
    readTimeout: Duration = .seconds(10)
) -> OpenAIClient {
    OpenAIClient(configuration: OpenAIConfiguration(
        baseURL: server.baseURL,
        apiKey: apiKey,
        readTimeout: readTimeout,
        retryPolicy: RetryPolicy(maxRetries: retries, initialDelay: .milliseconds(10), maxDelay: .milliseconds(50))
    ))
}

/// Collects a chat stream's events, and the error that ended it, if any.
func collect(_ stream: AsyncThrowingStream<ChatStreamEvent, any Error>) async -> (events: [ChatStreamEvent], error: (any Error)?) {
    var events: [ChatStreamEvent] = []
    do {
        for try await event in stream { events.append(event) }
        return (events, nil)
    } catch {
        return (events, error)
    }
}

extension Array where Element == ChatStreamEvent {
    var deltas: [String] {
        compactMap { if case .delta(let text) = $0 { text } else { nil } }
    }

    var completion: ChatCompletion? {
        for event in self { if case .finished(let completion) = event { return completion } }
        return nil
    }
}

let chatPath = "/v1/chat/completions"
