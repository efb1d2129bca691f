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
/// Its read timeout is a ceiling against hangs only (the tests of timeouts give their own): at 10 s,
/// requests on a machine the whole suite kept busy for most of a minute timed out and were retried,
/// and the tests counting requests or reading answers failed, one patched after another.
func makeClient(
    _ server: OpenAITestServer,
    apiKey: String? = "sk-test-0123456789abcdef",
    retries: Int = 2,
    readTimeout: Duration = .seconds(120)
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

/// A loopback port bound by a socket that never listens: connections to it are refused, and no
/// one else can bind it until `release()`.
struct ClosedPort {
    let descriptor: Int32
    let port: Int

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard bound == 0, named == 0 else {
            close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func release() { close(descriptor) }
}
