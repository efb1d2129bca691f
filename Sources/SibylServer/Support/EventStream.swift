import Assistant
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// A server-sent-event stream: `event: NAME` and one `data:` line of JSON per event.
///
/// A comment line is sent every 15 s while nothing else is, so proxies and clients do not take a
/// slow model for a dead connection.
struct EventStream: Sendable {
    /// Writes events; `send` throws once the client has gone.
    struct Writer: Sendable {
        fileprivate let continuation: AsyncStream<ByteBuffer>.Continuation

        /// Sends one named event with a JSON payload; false once the client has gone.
        @discardableResult
        func send(_ event: String, _ value: some Encodable) -> Bool {
            let json = WireCoding.jsonText(value)
            return deliver("event: \(event)\ndata: \(json)\n\n")
        }

        /// Sends a `data:` line as it is (OpenAI's framing has no event names); false once the client has gone.
        @discardableResult
        func sendData(_ text: String) -> Bool {
            deliver("data: \(text)\n\n")
        }

        /// Ends the response now; what the producer does after this (logging) no longer keeps the client waiting.
        func finish() {
            continuation.finish()
        }

        private func deliver(_ text: String) -> Bool {
            if case .terminated = continuation.yield(ByteBuffer(string: text)) { return false }
            return true
        }
    }

    static let headers: HTTPFields = [
        .contentType: "text/event-stream; charset=utf-8",
        .cacheControl: "no-cache",
        HTTPField.Name("X-Accel-Buffering")!: "no",
    ]

    /// A response whose body is what `produce` sends; `produce` runs in its own task, so it goes on
    /// even when the client leaves (what it does then is its business), and the response ends when it returns.
    static func response(status: HTTPResponse.Status = .ok, _ produce: @escaping @Sendable (Writer) async -> Void) -> Response {
        let (stream, continuation) = AsyncStream<ByteBuffer>.makeStream()
        let producer = Task {
            await produce(Writer(continuation: continuation))
            continuation.finish()
        }
        let body = ResponseBody { writer in
            let keepAlive = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(15))
                    if !Task.isCancelled { continuation.yield(ByteBuffer(string: ": keep-alive\n\n")) }
                }
            }
            defer { keepAlive.cancel() }
            for await chunk in stream {
                try await writer.write(chunk)
            }
            _ = producer
            try await writer.finish(nil)
        }
        return Response(status: status, headers: headers, body: body)
    }
}
