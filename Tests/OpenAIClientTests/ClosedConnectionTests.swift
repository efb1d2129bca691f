import AsyncHTTPClient
import Foundation
import NIOCore
import SibylCore
import Synchronization
import Testing
@testable import OpenAIClient

/// A kept-alive connection the server lets go just as the next request is sent (llama-server and
/// uvicorn close idle ones after 5 s): the request fails without the server having seen it. Sibyl
/// used to wait out a retry backoff (about half a second) before asking again, on a spoken
/// question every time the person had been quiet for about five seconds.
@Suite("A connection the server closed while idle", .timeLimit(.minutes(5)))
struct ClosedConnectionTests {
    /// A client that never retries by its policy (and would wait an hour if it did): only the
    /// closed-connection path can send a request again.
    static func client(of server: KeepAliveServer) -> OpenAIClient {
        OpenAIClient(configuration: OpenAIConfiguration(
            baseURL: "http://127.0.0.1:\(server.port)/v1", apiKey: "sk-test-0123456789abcdef",
            retryPolicy: RetryPolicy(maxRetries: 0, initialDelay: .seconds(3600), maxDelay: .seconds(3600))
        ))
    }

    @Test func aRequestOnAConnectionTheServerClosedIsSentAgainAtOnce() async throws {
        let server = try KeepAliveServer()
        defer { server.stop() }
        let client = Self.client(of: server)
        let request = ChatRequest(model: "m", messages: [.user("hi")])
        #expect(try await client.complete(request).text == "answer 1")
        // The server closes the kept-alive connection when this one arrives on it, unanswered.
        #expect(try await client.complete(request).text == "answer 3")
        let log = server.log
        #expect(log.count == 3 && log[0] == "answered on connection 1" && log[1].hasPrefix("closed connection") && log[2].hasPrefix("answered on connection"), "\(log)")
    }

    @Test func theWaysAClosedConnectionShowsAreKnown() {
        // As AsyncHTTPClient reports a connection closed unanswered, and as NIO reports a write on
        // one the server had just closed ("I/O on closed channel", seen against llama-server).
        for error: any Error in [HTTPClientError.remoteConnectionClosed, ChannelError.ioOnClosedChannel, ChannelError.eof, IOError(errnoCode: EPIPE, reason: "write"), IOError(errnoCode: ECONNRESET, reason: "read")] {
            #expect(OpenAIClient.map(error).closedByServer, "\(error)")
        }
        for error: any Error in [IOError(errnoCode: ECONNREFUSED, reason: "connect"), HTTPClientError.connectTimeout, HTTPClientError.readTimeout] {
            #expect(!OpenAIClient.map(error).closedByServer, "\(error)")
        }
    }

    @Test func aServerThatKeepsClosingIsAnErrorNotALoop() async throws {
        let server = try KeepAliveServer(closeEveryRequest: true)
        defer { server.stop() }
        let client = Self.client(of: server)
        let error = await #expect(throws: OpenAIError.self) {
            try await client.complete(ChatRequest(model: "m", messages: [.user("hi")]))
        }
        guard case .connection? = error else {
            Issue.record("expected a connection error, got \(String(describing: error))")
            return
        }
        // Sent once, and once more at once: no more.
        #expect(server.log == ["closed connection 1 unanswered", "closed connection 2 unanswered"])
    }
}

/// A loopback HTTP/1.1 server on plain sockets that keeps connections alive and, like a server
/// whose idle timer fires as a request arrives, closes a connection unanswered when a second
/// request comes on it (or every request, with `closeEveryRequest`).
final class KeepAliveServer: Sendable {
    let port: Int
    private let listener: Int32
    private let events = Mutex<[String]>([])
    private let closeEveryRequest: Bool

    /// What happened, in order.
    var log: [String] { events.withLock { $0 } }

    init(closeEveryRequest: Bool = false) throws {
        self.closeEveryRequest = closeEveryRequest
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ready = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && listen(descriptor, 8) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard ready else {
            close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        listener = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    func stop() { shutdown(listener, Int32(SHUT_RDWR)); close(listener) }

    private func acceptLoop() {
        var connection = 0
        var received = 0
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            connection += 1
            // One connection at a time, each to its end: the client uses one.
            while readRequest(client) {
                received += 1
                // The second request of all is let go unanswered, on whichever connection it
                // came: on a loaded machine the client may have let the first one go idle already.
                if closeEveryRequest || received == 2 {
                    events.withLock { $0.append("closed connection \(connection) unanswered") }
                    break
                }
                events.withLock { $0.append("answered on connection \(connection)") }
                let body = #"{"id":"c","object":"chat.completion","created":0,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"answer \#(received)"},"finish_reason":"stop"}]}"#
                let response = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\n\r\n" + body
                let bytes = Array(response.utf8)
                guard bytes.withUnsafeBytes({ send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else { break }
            }
            close(client)
        }
    }

    /// Reads one request (headers and a Content-Length body); false when the client closed.
    private func readRequest(_ client: Int32) -> Bool {
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            if let end = data.firstRange(of: Array("\r\n\r\n".utf8)) {
                let head = String(decoding: data[..<end.lowerBound], as: UTF8.self).lowercased()
                let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                if data.count - end.upperBound >= length { return true }
            }
            let count = recv(client, &buffer, buffer.count, 0)
            guard count > 0 else { return false }
            data += buffer[..<count]
        }
    }
}
