import Foundation

/// What the test server answers to one request.
public indirect enum Reply: Sendable {
    /// A complete response.
    case body(status: Int, headers: [(String, String)], data: Data)
    /// A streamed response: each chunk is written, with a pause between them; with `dropConnection`
    /// the connection is torn down after the last chunk instead of ending the response.
    case stream(status: Int, headers: [(String, String)], chunks: [Data], pause: Duration, dropConnection: Bool)
    /// Waits before sending anything at all (no headers), then answers.
    case delayed(Duration, Reply)
    /// A reply held for the test: for a stream, `gate` is awaited before chunk `beforeChunk` is
    /// written (the chunks before it are sent); for anything else, before it is answered. The test
    /// lets it go on when it is ready (an event it controls, where a pause would guess).
    case held(Reply, beforeChunk: Int, gate: @Sendable () async -> Void)

    /// A JSON response from a JSON text.
    public static func json(_ text: String, status: Int = 200, headers: [(String, String)] = []) -> Reply {
        .body(status: status, headers: [("Content-Type", "application/json")] + headers, data: Data(text.utf8))
    }

    /// A JSON response from an encodable-by-JSONSerialization value.
    public static func json(object: Any, status: Int = 200, headers: [(String, String)] = []) -> Reply {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return .body(status: status, headers: [("Content-Type", "application/json")] + headers, data: data)
    }

    /// An OpenAI-style error body.
    public static func error(status: Int, message: String, type: String = "invalid_request_error", code: String? = nil, headers: [(String, String)] = []) -> Reply {
        var detail: [String: Any] = ["message": message, "type": type, "param": NSNull()]
        detail["code"] = code ?? NSNull()
        return .json(object: ["error": detail], status: status, headers: headers)
    }

    /// Raw bytes with a content type.
    public static func bytes(_ data: Data, contentType: String, status: Int = 200) -> Reply {
        .body(status: status, headers: [("Content-Type", contentType)], data: data)
    }

    /// A server-sent-event stream made of raw text pieces, sent as separate chunks.
    public static func eventStream(_ pieces: [String], pause: Duration = .zero, dropConnection: Bool = false) -> Reply {
        .stream(
            status: 200,
            headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")],
            chunks: pieces.map { Data($0.utf8) },
            pause: pause,
            dropConnection: dropConnection
        )
    }

    /// A non-streaming chat completion.
    public static func chatCompletion(_ text: String, model: String = "test-model", promptTokens: Int = 10, completionTokens: Int = 5, finishReason: String = "stop") -> Reply {
        .json(object: [
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": model,
            "choices": [["index": 0, "message": ["role": "assistant", "content": text], "finish_reason": finishReason]],
            "usage": ["prompt_tokens": promptTokens, "completion_tokens": completionTokens, "total_tokens": promptTokens + completionTokens],
        ])
    }

    /// A streamed chat completion as OpenAI sends it: one chunk per delta, a finish chunk, a usage
    /// chunk with empty `choices`, then `[DONE]`.
    public static func chatStream(
        _ deltas: [String],
        model: String = "test-model",
        promptTokens: Int = 10,
        completionTokens: Int? = nil,
        lineEnding: String = "\n",
        pause: Duration = .zero,
        dropAfter: Int? = nil
    ) -> Reply {
        var pieces = SSE.chatChunks(deltas, model: model, promptTokens: promptTokens, completionTokens: completionTokens ?? deltas.count)
            .map { SSE.event($0, lineEnding: lineEnding) }
        pieces.append(SSE.event("[DONE]", lineEnding: lineEnding))
        if let dropAfter {
            return .eventStream(Array(pieces.prefix(dropAfter)), pause: pause, dropConnection: true)
        }
        return .eventStream(pieces, pause: pause)
    }

    /// A streamed chat completion (as `chatStream`) that sends its first `sent` deltas and then
    /// waits for `gate` before the rest: the test holds the answer in the middle for as long as
    /// it needs (to look at what was saved, to kill the server that asked).
    public static func chatStream(
        _ deltas: [String], holdingAfter sent: Int, until gate: @escaping @Sendable () async -> Void, model: String = "test-model", pause: Duration = .zero
    ) -> Reply {
        // Chunk 0 gives the role; chunk 1 + k, the k-th delta.
        .held(chatStream(deltas, model: model, pause: pause), beforeChunk: 1 + sent, gate: gate)
    }
}

extension Reply {
    /// A streamed answer that calls tools instead of answering, as OpenAI streams one: the first
    /// chunk of each call names it (with empty arguments), its arguments follow in two pieces, and
    /// the finish reason is `tool_calls`.
    public static func toolCallStream(_ calls: [(id: String, name: String, arguments: String)], model: String = "test-model") -> Reply {
        func json(_ object: Any) -> String {
            String(decoding: (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data(), as: UTF8.self)
        }
        let base: [String: Any] = ["id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 1_700_000_000, "model": model]
        func chunk(_ delta: [String: Any], finish: Any = NSNull()) -> String {
            var chunk = base
            chunk["choices"] = [["index": 0, "delta": delta, "finish_reason": finish]]
            return SSE.event(json(chunk))
        }
        var pieces = [chunk(["role": "assistant", "content": NSNull()])]
        for (index, call) in calls.enumerated() {
            pieces.append(chunk(["tool_calls": [["index": index, "id": call.id, "type": "function", "function": ["name": call.name, "arguments": ""]]]]))
            let middle = call.arguments.index(call.arguments.startIndex, offsetBy: call.arguments.count / 2)
            for part in [call.arguments[..<middle], call.arguments[middle...]] {
                pieces.append(chunk(["tool_calls": [["index": index, "function": ["arguments": String(part)]]]]))
            }
        }
        pieces.append(chunk([:], finish: "tool_calls"))
        pieces.append(SSE.event("[DONE]"))
        return .eventStream(pieces)
    }
}

/// Helpers to write server-sent events by hand.
public enum SSE {
    /// One `data:` event followed by a blank line.
    public static func event(_ data: String, lineEnding: String = "\n") -> String {
        "data: \(data)\(lineEnding)\(lineEnding)"
    }

    /// The JSON chunks of a streamed chat completion, without `[DONE]`.
    public static func chatChunks(_ deltas: [String], model: String = "test-model", promptTokens: Int = 10, completionTokens: Int = 1) -> [String] {
        func json(_ object: Any) -> String {
            String(decoding: (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data(), as: UTF8.self)
        }
        let base: [String: Any] = ["id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 1_700_000_000, "model": model]
        var chunks: [String] = []
        var first = base
        first["choices"] = [["index": 0, "delta": ["role": "assistant", "content": ""], "finish_reason": NSNull()]]
        chunks.append(json(first))
        for delta in deltas {
            var chunk = base
            chunk["choices"] = [["index": 0, "delta": ["content": delta], "finish_reason": NSNull()]]
            chunks.append(json(chunk))
        }
        var finish = base
        finish["choices"] = [["index": 0, "delta": [String: Any](), "finish_reason": "stop"]]
        chunks.append(json(finish))
        var usage = base
        usage["choices"] = [Any]()
        usage["usage"] = ["prompt_tokens": promptTokens, "completion_tokens": completionTokens, "total_tokens": promptTokens + completionTokens]
        chunks.append(json(usage))
        return chunks
    }
}
