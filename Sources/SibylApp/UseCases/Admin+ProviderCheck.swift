import Assistant
import Foundation
import LocalEngines
import OpenAIClient
import SibylConfig
import SibylCore

extension SibylRuntime.Admin {
    /// The server capabilities probed for each configured capability.
    static let probes: [CapabilityKind: [ServerCapability]] = [
        .chat: [.chat, .stream], .embeddings: [.embeddings], .stt: [.transcription, .translation], .tts: [.speech], .images: [.images],
    ]

    /// Checks every capability on the provider it resolves to, with tiny real requests.
    public func checkProviders() async -> [ProviderCheckRow] {
        let engines = runtime.local.installer.status()
        var rows: [ProviderCheckRow] = []
        for capability in CapabilityKind.allCases {
            let probes = Self.probes[capability, default: []]
            guard let provider = try? runtime.providers.provider(for: capability) else { continue }
            let engine = engines.first { $0.name == capability.rawValue }
            let statuses: [CapabilityStatus]
            if provider.isLocal {
                statuses = await checkLocal(capability, probes: probes, engine: engine)
            } else {
                statuses = await checkRemote(capability, provider: provider, probes: probes)
            }
            rows += statuses.map { ProviderCheckRow(capability: capability, probe: $0.capability, provider: provider, localEngine: engine, status: $0) }
        }
        return rows
    }

    /// What the check's table does not say: languages the local chat model translates poorly,
    /// when chat runs locally.
    public func providerNotes(for rows: [ProviderCheckRow]) -> [String] {
        guard let chat = rows.first(where: { $0.capability == .chat }), chat.provider.isLocal,
              let model = try? runtime.providers.localChatModel(), let note = model.translationNote else { return [] }
        return [note]
    }

    private func checkRemote(_ capability: CapabilityKind, provider: ProviderSettings, probes: [ServerCapability]) async -> [CapabilityStatus] {
        if provider.isOpenAI, provider.apiKey == nil {
            return probes.map { CapabilityStatus(capability: $0, state: .unauthorized, detail: "no API key: store the key 'openai' or set OPENAI_API_KEY") }
        }
        let client = OpenAIClient(configuration: runtime.providers.configuration(for: provider), logger: runtime.logger)
        var models = ProbeModels()
        switch capability {
        case .chat: models.chat = try? await runtime.providers.chatModelName(client: client, provider: provider)
        case .embeddings: models.embeddings = provider.model
        case .stt: models.transcription = provider.model
        case .tts: models.speech = provider.model
        case .images: break
        }
        return await client.probe(probes, models: models).statuses
    }

    private func checkLocal(_ capability: CapabilityKind, probes: [ServerCapability], engine: ComponentStatus?) async -> [CapabilityStatus] {
        if let engine, !engine.installed {
            return probes.map {
                CapabilityStatus(capability: $0, state: .unavailable, detail: "not installed: install the component '\(engine.name)' (missing \(engine.missing.joined(separator: ", ")))")
            }
        }
        let started = ContinuousClock.now
        do {
            switch capability {
            case .chat:
                let endpoint = try await runtime.providers.chatEndpoint()
                // The local model may still be loading, and reads its first prompt on the same cores as everything else.
                return await endpoint.client.probe(probes, models: ProbeModels(chat: endpoint.model), quiet: .seconds(600)).statuses
            case .embeddings:
                let result = try await runtime.providers.embedder().embed(["Sibyl checks its embedder."], options: EmbeddingOptions())
                return [CapabilityStatus(capability: .embeddings, state: .available, detail: "\(result.model) in Swift, \(result.vectors.first?.count ?? 0) dimensions", latency: ContinuousClock.now - started)]
            case .stt:
                // Two seconds of a spoken sentence would be better, but silence proves the engine runs.
                let silence = WAVAudio(sampleRate: 16_000, channels: 1, bitsPerSample: 16, samples: Data(count: 32_000))
                var statuses: [CapabilityStatus] = []
                for probe in probes {
                    let begun = ContinuousClock.now
                    _ = try await runtime.providers.transcriber().transcribe(AudioFile(data: silence.encoded(), format: .wav), options: TranscriptionOptions(translate: probe == .translation))
                    statuses.append(CapabilityStatus(capability: probe, state: .available, detail: "whisper.cpp, Whisper base", latency: ContinuousClock.now - begun))
                }
                return statuses
            case .tts:
                let audio = try await runtime.providers.speechSynthesizer().synthesize("OK.", options: SpeechOptions(format: .wav))
                return [CapabilityStatus(capability: .speech, state: .available, detail: "espeak-ng, \(audio.data.count) bytes", latency: ContinuousClock.now - started)]
            default:
                return probes.map { CapabilityStatus(capability: $0, state: .unavailable, detail: "no local engine: configure a remote provider (the \(capability.rawValue).base_url setting)") }
            }
        } catch {
            return probes.map { CapabilityStatus(capability: $0, state: .failed, detail: ConversationEngine.describe(error), latency: ContinuousClock.now - started) }
        }
    }
}
