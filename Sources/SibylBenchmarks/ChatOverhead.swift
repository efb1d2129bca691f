import AsyncHTTPClient
import Assistant
import Foundation
import LocalEngines
import NIOCore
import NIOFoundationCompat
import OpenAIClient
import SibylApp
import SibylCore
import Storage

/// Measures what Sibyl adds to local chat: the same requests straight to llama-server and through
/// Sibyl's conversation engine (history fitting, streaming client, persistence), interleaved.
struct ChatOverheadBenchmark {
    struct Sample {
        var timeToFirstToken: Duration
        var total: Duration
        var completionTokens: Int

        /// Generation speed after the first token.
        var tokensPerSecond: Double {
            let generation = Double((total - timeToFirstToken).milliseconds) / 1000
            return generation > 0 ? Double(max(0, completionTokens - 1)) / generation : 0
        }
    }

    let question: String
    let maxTokens: Int
    let rounds: Int

    func run() async throws -> (direct: [Sample], sibyl: [Sample]) {
        let layout = EngineLayout()
        let server = LlamaServer(configuration: .init(
            executable: layout.llamaServer,
            model: layout.chatModel,
            alias: "bench",
            logFile: FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-bench-llama.log")
        ))
        defer { Task { await server.stop() } }
        let baseURL = try await server.baseURL()
        let store = try ConversationStore.inMemory()
        let client = OpenAIClient(configuration: OpenAIConfiguration(baseURL: baseURL))
        let engine = ConversationEngine(
            store: QueuedConversationStore(store),
            chatModel: client,
            options: EngineOptions(model: "bench", temperature: 0, maxTokens: maxTokens, contextWindow: 8192, titles: .firstWords)
        )
        let system = try await engine.persona(for: Conversation(source: .cli)).systemPrompt
        var direct: [Sample] = []
        var sibyl: [Sample] = []
        // One warm-up of each, so the prompt cache and connection pool start alike.
        _ = try await directRequest(baseURL: baseURL, system: system)
        _ = try await throughSibyl(engine)
        // Alternate which goes first, so drift in the machine's load does not favour either.
        for round in 0..<rounds {
            if round.isMultiple(of: 2) {
                direct.append(try await directRequest(baseURL: baseURL, system: system))
                sibyl.append(try await throughSibyl(engine))
            } else {
                sibyl.append(try await throughSibyl(engine))
                direct.append(try await directRequest(baseURL: baseURL, system: system))
            }
        }
        return (direct, sibyl)
    }

    /// The question with a new number in front: the server's prompt cache then holds the system
    /// prompt for both paths, but every question is read afresh, as in real use.
    private func freshQuestion() -> String {
        "Question \(Int.random(in: 100_000...999_999)): \(question)"
    }

    /// A streamed request written by hand: the smallest client possible. A kept-alive connection the
    /// server has just closed is retried once, as Sibyl's client does too.
    private func directRequest(baseURL: String, system: String) async throws -> Sample {
        do {
            return try await directRequestOnce(baseURL: baseURL, system: system)
        } catch {
            return try await directRequestOnce(baseURL: baseURL, system: system)
        }
    }

    private func directRequestOnce(baseURL: String, system: String) async throws -> Sample {
        let body: [String: Any] = [
            "model": "bench", "temperature": 0, "max_tokens": maxTokens, "stream": true,
            "stream_options": ["include_usage": true],
            "messages": [["role": "system", "content": system], ["role": "user", "content": freshQuestion()]],
        ]
        var request = HTTPClientRequest(url: baseURL + "/chat/completions")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(data: try JSONSerialization.data(withJSONObject: body)))
        let started = ContinuousClock.now
        let response = try await HTTPClient.shared.execute(request, timeout: .minutes(5))
        var firstToken: ContinuousClock.Instant?
        var tokens = 0
        var pending = ""
        for try await buffer in response.body {
            pending += String(buffer: buffer)
            while let end = pending.range(of: "\n\n") {
                let event = pending[..<end.lowerBound]
                pending = String(pending[end.upperBound...])
                guard event.hasPrefix("data: "), !event.hasSuffix("[DONE]") else { continue }
                if firstToken == nil, event.contains("\"content\":\""), !event.contains("\"content\":\"\"") { firstToken = .now }
                if let range = event.range(of: "\"completion_tokens\":") {
                    tokens = Int(event[range.upperBound...].prefix { $0.isNumber }) ?? tokens
                }
            }
        }
        let end = ContinuousClock.now
        return Sample(timeToFirstToken: (firstToken ?? end) - started, total: end - started, completionTokens: tokens)
    }

    private func throughSibyl(_ engine: ConversationEngine) async throws -> Sample {
        let started = ContinuousClock.now
        let conversation = try await engine.startConversation(source: .cli)
        var firstToken: ContinuousClock.Instant?
        var tokens = 0
        for await event in try await engine.send(freshQuestion(), in: conversation.id).events {
            switch event {
            case .delta where firstToken == nil: firstToken = .now
            case .finished(let message): tokens = message.usage?.completionTokens ?? 0
            case .failed(_, let error): throw BenchmarkFailure(message: error.text)
            default: break
            }
        }
        let end = ContinuousClock.now
        return Sample(timeToFirstToken: (firstToken ?? end) - started, total: end - started, completionTokens: tokens)
    }
}

/// A benchmark run that could not complete.
struct BenchmarkFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
