import AsyncHTTPClient
import Foundation
import Logging
import MCP
import NIOCore
import NIOHTTP1
import OpenAIClient

/// MCP's streamable HTTP transport, client side, on AsyncHTTPClient: each message is POSTed to the
/// server's endpoint, which answers with JSON or with a stream of server-sent events carrying the
/// response (the MCP Python SDK's default). The session the server names at initialization is
/// sent with every later request.
///
/// The SDK's own HTTP transport reads a response whole on Linux and cannot take a server-sent
/// event stream there, so servers that stream (most) could not be used through it.
actor StreamableHTTPTransport: Transport {
    nonisolated let logger: Logger
    private let endpoint: URL
    private let http: HTTPClient
    private var sessionID: String?
    private var protocolVersion: String?
    private let messages: AsyncThrowingStream<Data, any Error>
    private let incoming: AsyncThrowingStream<Data, any Error>.Continuation

    init(endpoint: URL, http: HTTPClient = .shared, logger: Logger) {
        self.endpoint = endpoint
        self.http = http
        self.logger = logger
        (messages, incoming) = AsyncThrowingStream.makeStream()
    }

    func connect() async throws {}

    /// Ends the session: the server is told (DELETE), and the stream of messages ends.
    func disconnect() async {
        if let sessionID {
            var request = HTTPClientRequest(url: endpoint.absoluteString)
            request.method = .DELETE
            request.headers.add(name: "Mcp-Session-Id", value: sessionID)
            _ = try? await http.execute(request, timeout: .seconds(5))
        }
        sessionID = nil
        incoming.finish()
    }

    func send(_ data: Data) async throws {
        var request = HTTPClientRequest(url: endpoint.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Accept", value: "application/json, text/event-stream")
        if let sessionID { request.headers.add(name: "Mcp-Session-Id", value: sessionID) }
        if let protocolVersion { request.headers.add(name: "MCP-Protocol-Version", value: protocolVersion) }
        request.body = .bytes(ByteBuffer(bytes: data))
        // The toolbox's ceiling cancels a request that takes too long; this is a guard against a hang.
        let response = try await http.execute(request, timeout: .hours(1))
        if let session = response.headers.first(name: "Mcp-Session-Id") { sessionID = session }
        guard (200..<300).contains(response.status.code) else {
            let body = try? await response.body.collect(upTo: 64 << 10)
            let detail = body.map { String(buffer: $0) }?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            throw MCPError.internalError("the server answered HTTP \(response.status.code)\(detail.isEmpty ? "" : ": \(detail.prefix(300))")")
        }
        // 202 Accepted: a notification or response, which has no answer.
        if response.status.code == 202 { return }
        let type = response.headers.first(name: "Content-Type")?.lowercased() ?? ""
        if type.hasPrefix("text/event-stream") {
            var parser = ServerSentEventParser()
            for try await piece in response.body {
                for event in parser.consume(piece.readableBytesView) { deliver(event) }
            }
            for event in parser.finish() { deliver(event) }
        } else {
            let body = try await response.body.collect(upTo: 64 << 20)
            if body.readableBytes > 0 { deliver(Data(body.readableBytesView)) }
        }
    }

    nonisolated func receive() -> AsyncThrowingStream<Data, any Error> {
        messages
    }

    private func deliver(_ event: ServerSentEvent) {
        // `message` events (or unnamed ones) carry JSON-RPC messages; a priming event has no data.
        guard event.event == nil || event.event == "message", !event.data.isEmpty else { return }
        deliver(Data(event.data.utf8))
    }

    private func deliver(_ message: Data) {
        // Later requests name the protocol version the server chose at initialization.
        if protocolVersion == nil,
           let object = try? JSONSerialization.jsonObject(with: message) as? [String: Any],
           let version = (object["result"] as? [String: Any])?["protocolVersion"] as? String {
            protocolVersion = version
        }
        incoming.yield(message)
    }
}
