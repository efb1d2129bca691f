import Foundation
import OpenAITestServer

/// The one scripted model server of Sibyl's tests: an OpenAI-compatible test server whose chat
/// endpoint streams a scripted answer to every streamed request and names every other (a title)
/// with a scripted title, recording what it was asked.
public struct ScriptedModel: Sendable {
    /// The server, for scripting other replies (faults, other paths) and reading its requests.
    public let server: OpenAITestServer

    /// The chat endpoint's path.
    public static let chatPath = "/v1/chat/completions"

    /// The embeddings endpoint's path.
    public static let embeddingsPath = "/v1/embeddings"

    /// Starts a server that answers streamed chat requests with `answer` in pieces and others with
    /// `title`, and embeds texts by their words (see `wordVector`).
    public static func start(answer: [String] = ["Hello."], title: String = "A title") async throws -> ScriptedModel {
        let model = scripting(try await OpenAITestServer.start())
        model.script(answer: answer, title: title)
        return model
    }

    /// Scripts a server already running (a fixture's): it embeds texts by their words from now on;
    /// chat and speech-to-text answer as `script` and `hear` say.
    public static func scripting(_ server: OpenAITestServer) -> ScriptedModel {
        let model = ScriptedModel(server: server)
        model.server.handle(embeddingsPath) { request in
            let input = request.json?["input"]
            let texts = (input as? [String]) ?? (input as? String).map { [$0] } ?? []
            let data = texts.enumerated().map { index, text in ["object": "embedding", "index": index, "embedding": wordVector(text)] as [String: Any] }
            let tokens = texts.reduce(0) { $0 + $1.split(separator: " ").count }
            return .json(object: ["object": "list", "data": data, "model": "word-vectors", "usage": ["prompt_tokens": tokens, "total_tokens": tokens]])
        }
        return model
    }

    /// A text's vector: its words (lower-cased, letters and digits) hashed into 128 buckets, scaled
    /// to length 1, so that texts sharing words are similar and texts sharing none are orthogonal.
    public static func wordVector(_ text: String) -> [Double] {
        var vector = [Double](repeating: 0, count: 128)
        let words = text.lowercased().split { !$0.isLetter && !$0.isNumber }.filter { $0.count > 2 }
        for word in words {
            var hash: UInt32 = 2_166_136_261
            for byte in String(word).utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
            vector[Int(hash % 128)] += 1
        }
        let length = vector.reduce(0) { $0 + $1 * $1 }.squareRoot()
        return length > 0 ? vector.map { $0 / length } : vector
    }

    /// Changes what the model answers from now on.
    public func script(answer: [String], title: String = "A title") {
        server.handle(Self.chatPath) { request in
            request.json?["stream"] as? Bool == true ? .chatStream(answer) : .chatCompletion(title)
        }
    }

    /// The settings that point Sibyl's chat at this server.
    public var environment: [String: String] {
        ["SIBYL_CHAT_BASE_URL": server.baseURL, "SIBYL_CHAT_MODEL": "test-model", "SIBYL_MAX_RETRIES": "0"]
    }

    /// The speech-to-text endpoint's path.
    public static let transcriptionPath = "/v1/audio/transcriptions"

    /// Makes the server's speech-to-text hear `text` in any recording.
    public func hear(_ text: String) {
        server.handle(Self.transcriptionPath) { _ in .json(object: ["text": text, "language": "en", "duration": 2.0]) }
    }

    /// The settings that point Sibyl's speech-to-text at this server.
    public var speechEnvironment: [String: String] {
        ["SIBYL_STT_BASE_URL": server.baseURL, "SIBYL_STT_MODEL": "whisper-test"]
    }

    /// The settings that point Sibyl's chat and its embeddings at this server.
    public var environmentWithEmbeddings: [String: String] {
        environment.merging(["SIBYL_EMBEDDINGS_BASE_URL": server.baseURL, "SIBYL_EMBEDDINGS_MODEL": "word-vectors"]) { $1 }
    }

    /// The streamed chat requests so far (the answers, not the titles), oldest first, as JSON.
    public var streamedRequests: [[String: Any]] {
        server.requests(to: Self.chatPath).compactMap(\.json).filter { $0["stream"] as? Bool == true }
    }

    /// The system prompt of the last streamed request.
    public var lastSystemPrompt: String? {
        let messages = streamedRequests.last?["messages"] as? [[String: Any]]
        return messages?.first { $0["role"] as? String == "system" }?["content"] as? String
    }

    /// Stops the server.
    public func stop() async {
        await server.stop()
    }
}
