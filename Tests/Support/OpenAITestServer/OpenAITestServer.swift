import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Synchronization
import TestEvents

/// A scriptable OpenAI-compatible HTTP server for tests, with fault injection.
///
/// Each path has a queue of one-shot replies (used first, in order) and an optional standing
/// handler; anything else gets OpenAI's 404 `unknown_url` error. Every request is recorded.
public final class OpenAITestServer: Sendable {
    private struct State {
        var queued: [String: [Reply]] = [:]
        var handlers: [String: @Sendable (RecordedRequest) -> Reply] = [:]
        var requests: [RecordedRequest] = []
    }

    private let state = Mutex(State())
    private let task = Mutex<Task<Void, any Error>?>(nil)
    private let portBox = Mutex(0)
    /// How many requests have come: waiting for requests waits for this to change.
    private let arrivals = Observed(0)

    /// The API root to give the client, e.g. `http://127.0.0.1:54321/v1`.
    public var baseURL: String { "http://127.0.0.1:\(port)/v1" }
    /// The port the server listens on.
    public var port: Int { portBox.withLock { $0 } }

    private init() {}

    /// Starts a server on a free loopback port.
    public static func start() async throws -> OpenAITestServer {
        let server = OpenAITestServer()
        let (ready, readyContinuation) = AsyncStream<Int>.makeStream()
        let responder = CallbackResponder<BasicRequestContext> { request, _ in
            try await server.respond(to: request)
        }
        var logger = Logger(label: "sibyl.test-server")
        logger.logLevel = .critical
        let app = Application(
            responder: responder,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                readyContinuation.yield(channel.localAddress?.port ?? 0)
                readyContinuation.finish()
            },
            logger: logger
        )
        let task = Task { try await app.run() }
        server.task.withLock { $0 = task }
        for await port in ready {
            server.portBox.withLock { $0 = port }
        }
        guard server.port != 0 else { throw CancellationError() }
        return server
    }

    /// Stops the server.
    public func stop() async {
        let task = self.task.withLock { $0 }
        task?.cancel()
        _ = await task?.result
    }

    /// Queues a one-shot reply for a path such as `/v1/chat/completions`.
    public func enqueue(_ reply: Reply, for path: String) {
        state.withLock { $0.queued[path, default: []].append(reply) }
    }

    /// Answers every request to a path (once its queue is empty) with a handler.
    public func handle(_ path: String, _ handler: @escaping @Sendable (RecordedRequest) -> Reply) {
        state.withLock { $0.handlers[path] = handler }
    }

    /// The requests received so far, oldest first.
    public var requests: [RecordedRequest] { state.withLock { $0.requests } }

    /// The requests received for one path.
    public func requests(to path: String) -> [RecordedRequest] {
        requests.filter { $0.path == path }
    }

    /// Waits until at least `count` requests to `path` have come (woken by each one that does, not
    /// polling), and returns them; `ceiling` is a guard against hangs only.
    @discardableResult
    public func requests(to path: String, count: Int, within ceiling: Duration = .seconds(120)) async throws -> [RecordedRequest] {
        try await arrivals.wait(for: "\(count) requests to \(path) (\(requests(to: path).count) came)", within: ceiling) { _ in
            let found = requests(to: path)
            return found.count >= count ? found : nil
        }
    }

    /// Forgets recorded requests and queued replies.
    public func reset() {
        state.withLock { $0 = State() }
    }

    private func respond(to request: Request) async throws -> Response {
        let body = try await request.body.collect(upTo: 64 * 1024 * 1024)
        let recorded = RecordedRequest(
            method: request.method.rawValue,
            path: request.uri.path,
            headers: request.headers.map { ($0.name.rawName, $0.value) },
            body: Data(body.readableBytesView),
            receivedAt: .now
        )
        let reply: Reply = state.withLock { state in
            state.requests.append(recorded)
            if var queue = state.queued[recorded.path], !queue.isEmpty {
                let next = queue.removeFirst()
                state.queued[recorded.path] = queue
                return next
            }
            if let handler = state.handlers[recorded.path] { return handler(recorded) }
            return .error(status: 404, message: "Unknown request URL: \(recorded.method) \(recorded.path).", code: "unknown_url")
        }
        arrivals.update { $0 += 1 }
        return try await response(for: reply)
    }

    private func response(for reply: Reply) async throws -> Response {
        switch reply {
        case .delayed(let wait, let next):
            // A scripted slow reply: the delay is what the test simulates.
            try await Task.sleep(for: wait)
            return try await response(for: next)
        case .body(let status, let headers, let data):
            return Response(status: .init(code: status), headers: fields(headers), body: .init(byteBuffer: ByteBuffer(bytes: data)))
        case .stream(let status, let headers, let chunks, let pause, let dropConnection):
            return stream(status: status, headers: headers, chunks: chunks, pause: pause, dropConnection: dropConnection, hold: nil)
        case .held(let inner, let chunk, let gate):
            guard case .stream(let status, let headers, let chunks, let pause, let dropConnection) = inner else {
                await gate()
                return try await response(for: inner)
            }
            return stream(status: status, headers: headers, chunks: chunks, pause: pause, dropConnection: dropConnection, hold: (chunk, gate))
        }
    }

    /// A streamed body; with `hold`, the gate is awaited before that chunk is written.
    private func stream(
        status: Int, headers: [(String, String)], chunks: [Data], pause: Duration, dropConnection: Bool, hold: (chunk: Int, gate: @Sendable () async -> Void)?
    ) -> Response {
        let body = ResponseBody { writer in
            for (index, chunk) in chunks.enumerated() {
                // A scripted pause between pieces: what the test simulates (a slow stream).
                if index > 0, pause > .zero { try await Task.sleep(for: pause) }
                if let hold, hold.chunk == index { await hold.gate() }
                try await writer.write(ByteBuffer(bytes: chunk))
            }
            if dropConnection {
                // Let the written bytes reach the client first: closing discards unflushed writes.
                // (Part of the fault injection it simulates, a connection reset after some bytes:
                // the writer offers no event for bytes sent, and nothing waits on this pause.)
                try await Task.sleep(for: .milliseconds(100))
                // Throwing mid-body makes the server close the connection without ending the response.
                throw DroppedConnection()
            }
            try await writer.finish(nil)
        }
        return Response(status: .init(code: status), headers: fields(headers), body: body)
    }

    private func fields(_ headers: [(String, String)]) -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in headers {
            if let field = HTTPField.Name(name) { fields.append(HTTPField(name: field, value: value)) }
        }
        return fields
    }
}

/// The fault a scripted reply raises to cut its connection.
struct DroppedConnection: Error {}
