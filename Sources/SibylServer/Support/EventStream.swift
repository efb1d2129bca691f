import Assistant
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import SibylApp

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

        /// Sends an `error` event: the failure as the API reports it (code, message, remedy).
        @discardableResult
        func sendError(_ error: any Error) -> Bool {
            let apiError = APIError.from(error)
            return send("error", Wire.ErrorBody(code: apiError.code, message: apiError.message, remedy: apiError.remedy))
        }

        /// Sends a `data:` line as it is (OpenAI's framing has no event names); false once the client has gone.
        @discardableResult
        func sendData(_ text: String) -> Bool {
            deliver("data: \(text)\n\n")
        }

        private func deliver(_ text: String) -> Bool {
            if case .terminated = continuation.yield(ByteBuffer(string: text)) { return false }
            return true
        }
    }

    /// A response whose body `produce` writes as it runs, in the response's own task: one hand-off
    /// fewer per event than `response`, for streams that end when the client goes away (OpenAI's).
    /// `send` throws once the client has gone; `end` completes the response early, so that work
    /// done after it (logging) does not keep the client waiting. No keep-alive comments are sent.
    static func direct(
        _ produce: @escaping @Sendable (_ send: (String) async throws -> Void, _ end: () async throws -> Void) async throws -> Void
    ) -> Response {
        let body = ResponseBody { writer in
            var ended = false
            try await produce({ text in
                do {
                    try await writer.write(ByteBuffer(string: text))
                } catch {
                    throw ClientGone()
                }
            }, {
                guard !ended else { return }
                ended = true
                try await writer.finish(nil)
            })
            if !ended { try await writer.finish(nil) }
        }
        return Response(status: .ok, headers: headers, body: body)
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

/// The client of a direct event stream went away: nothing more can be sent.
struct ClientGone: Error {}
