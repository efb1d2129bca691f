import Foundation
import SibylCore

extension OpenAIClient {
    /// The models the server offers.
    public func models() async throws -> [ModelInfo] {
        try await sendJSON(.GET, "/models", as: ModelsResponse.self).data
    }
}

/// Something an OpenAI-compatible server may or may not serve.
public enum ServerCapability: String, Sendable, CaseIterable, Codable {
    case chat, stream, embeddings, transcription, translation, speech, images
}

/// What a probe found out about one capability.
public struct CapabilityStatus: Sendable, Hashable {
    public enum State: String, Sendable, Hashable, Codable {
        /// It answered a real request.
        case available
        /// The endpoint exists, but it was not exercised (it costs money or needs a model name).
        case present
        /// The server does not serve it (404, 405, 501, or the model is missing).
        case unavailable
        /// The key was refused.
        case unauthorized
        /// The server could not be reached.
        case unreachable
        /// It answered with some other error.
        case failed
    }

    public var capability: ServerCapability
    public var state: State
    /// A plain-words detail: the model used, or the server's message.
    public var detail: String
    public var latency: Duration?

    public init(capability: ServerCapability, state: State, detail: String, latency: Duration? = nil) {
        self.capability = capability
        self.state = state
        self.detail = detail
        self.latency = latency
    }
}

/// The result of probing a server.
public struct ProbeReport: Sendable {
    public var baseURL: String
    public var models: [ModelInfo]?
    public var modelsError: String?
    public var statuses: [CapabilityStatus]

    public func status(of capability: ServerCapability) -> CapabilityStatus? {
        statuses.first { $0.capability == capability }
    }
}

/// The models a probe should use for each capability.
public struct ProbeModels: Sendable {
    public var chat: String?
    public var embeddings: String?
    public var transcription: String?
    public var speech: String?

    public init(chat: String? = nil, embeddings: String? = nil, transcription: String? = nil, speech: String? = nil) {
        self.chat = chat
        self.embeddings = embeddings
        self.transcription = transcription
        self.speech = speech
    }
}

extension OpenAIClient {
    /// Finds out which capabilities the server actually serves, with tiny real requests.
    ///
    /// Image generation is only checked for presence (an empty request that a serving endpoint
    /// rejects with 400), because generating an image costs real money on paid APIs.
    /// `quiet` is how long a probe may wait without a byte: a minute for a remote server; a local
    /// engine that is loading its model on a busy machine is given longer.
    public func probe(
        _ capabilities: [ServerCapability] = ServerCapability.allCases, models probeModels: ProbeModels = ProbeModels(), quiet: Duration = .seconds(60)
    ) async -> ProbeReport {
        var quick = configuration
        quick.retryPolicy = .none
        quick.readTimeout = min(configuration.readTimeout, quiet)
        let client = OpenAIClient(configuration: quick, logger: logger)

        var models: [ModelInfo]?
        var modelsError: String?
        do {
            models = try await client.models()
        } catch {
            modelsError = error.localizedDescription
        }
        // A server that serves one model (llama.cpp) should be probed with it, whatever the default says.
        let onlyModel = models?.count == 1 ? models?.first?.id : nil
        let chatModel = probeModels.chat ?? onlyModel ?? configuration.defaultModels.chat
        let statuses = await withTaskGroup(of: CapabilityStatus.self) { group in
            for capability in capabilities {
                group.addTask {
                    await client.probe(capability, chatModel: chatModel, models: probeModels)
                }
            }
            var results: [CapabilityStatus] = []
            for await status in group { results.append(status) }
            return results.sorted { ServerCapability.allCases.firstIndex(of: $0.capability)! < ServerCapability.allCases.firstIndex(of: $1.capability)! }
        }
        return ProbeReport(baseURL: configuration.baseURL, models: models, modelsError: modelsError, statuses: statuses)
    }

    private func probe(_ capability: ServerCapability, chatModel: String, models: ProbeModels) async -> CapabilityStatus {
        let started = ContinuousClock.now
        do {
            let detail: String
            var state = CapabilityStatus.State.available
            switch capability {
            case .chat:
                let answer = try await complete(ChatRequest(model: chatModel, messages: [.user("Say OK.")], sampling: Sampling(maxTokens: 4)))
                detail = "model \(answer.model)"
            case .stream:
                var finished = false
                for try await event in stream(ChatRequest(model: chatModel, messages: [.user("Say OK.")], sampling: Sampling(maxTokens: 4))) {
                    if case .finished = event { finished = true }
                }
                detail = finished ? "model \(chatModel)" : "the stream ended early"
            case .embeddings:
                let result = try await embed(["probe"], options: EmbeddingOptions(model: models.embeddings))
                detail = "model \(result.model), \(result.vectors.first?.count ?? 0) dimensions"
            case .transcription, .translation:
                let silence = WAVAudio(sampleRate: 16_000, channels: 1, bitsPerSample: 16, samples: Data(count: 16_000))
                let options = TranscriptionOptions(translate: capability == .translation, model: models.transcription)
                _ = try await transcribe(AudioFile(data: silence.encoded(), format: .wav), options: options)
                detail = "model \(options.model ?? configuration.defaultModels.transcription)"
            case .speech:
                let audio = try await synthesize("OK.", options: SpeechOptions(model: models.speech, format: .wav))
                detail = "model \(models.speech ?? configuration.defaultModels.speech), \(audio.data.count) bytes"
            case .images:
                do {
                    _ = try await sendAndCollect(.POST, "/images/generations", body: Self.json([String: String]()))
                    detail = "endpoint answers"
                } catch let error as OpenAIError where error.status == 400 || error.status == 422 {
                    detail = "endpoint present (no image generated: it would cost money)"
                }
                state = .present
            }
            return CapabilityStatus(capability: capability, state: state, detail: detail, latency: ContinuousClock.now - started)
        } catch {
            return CapabilityStatus(capability: capability, state: Self.probeState(for: error), detail: Self.probeDetail(for: error), latency: ContinuousClock.now - started)
        }
    }

    static func probeState(for error: any Error) -> CapabilityStatus.State {
        guard let error = error as? OpenAIError else { return .failed }
        switch error {
        case .api(let status, let detail, _):
            if status == 401 || status == 403 { return .unauthorized }
            if status == 404 || status == 405 || status == 501 || detail.code == "model_not_found" { return .unavailable }
            return .failed
        case .connection, .timeout: return .unreachable
        default: return .failed
        }
    }

    static func probeDetail(for error: any Error) -> String {
        if case .api(_, let detail, _)? = error as? OpenAIError {
            return Redaction.redact(detail.message)
        }
        return Redaction.redact(error.localizedDescription)
    }
}
