import Foundation
import LocalEngines
import Logging
import OpenAIClient
import SibylConfig
import SibylCore
import Storage
import TextEmbedding
import Tokenizers

/// Sibyl's settings, store and providers, put together once for a shell (the CLI or the server).
public struct SibylRuntime: Sendable {
    public let settings: Settings
    public let store: ConversationStore
    public let logger: Logger
    /// The local engines (installed under `SIBYL_ENGINES`).
    public let local: LocalEngineHost

    public var paths: SibylPaths { settings.paths }

    /// Opens the data directory named by the environment.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment, logger: Logger = Logger(label: "sibyl")) throws {
        let paths = SibylPaths(environment: environment)
        try paths.createHome()
        settings = try Settings(paths: paths, environment: environment)
        store = try ConversationStore(path: paths.database.path, attachmentsDirectory: paths.attachments.path)
        self.logger = logger
        local = LocalEngineHost(layout: EngineLayout(environment: environment), logDirectory: paths.logs, logger: logger)
    }

    /// Provider settings for a capability.
    public func provider(for capability: CapabilityKind) throws -> ProviderSettings {
        try settings.provider(for: capability, secrets: settings.secrets)
    }

    /// A client for a capability's remote provider; fails plainly when OpenAI is the provider and no key is set.
    public func remoteClient(for capability: CapabilityKind) throws -> (OpenAIClient, ProviderSettings) {
        let provider = try provider(for: capability)
        if provider.isOpenAI, provider.apiKey == nil {
            throw AssistantError.missingAPIKey(capability: capability.title)
        }
        return (OpenAIClient(configuration: configuration(for: provider), logger: logger), provider)
    }

    /// Where chat goes: a client, the model name and, when known, the context size.
    public struct ChatEndpoint: Sendable {
        public var client: OpenAIClient
        public var model: String
        public var contextWindow: Int?
        public var provider: ProviderSettings
    }

    /// The chat endpoint: the local llama-server (started now if needed) or the remote provider.
    public func chatEndpoint(model override: String? = nil) async throws -> ChatEndpoint {
        let provider = try provider(for: .chat)
        if provider.isLocal {
            let server = try local.chat()
            var remote = provider
            remote.baseURL = try await server.baseURL()
            remote.apiKey = nil
            // The local server keeps no connection idle for long and a model load is its slowest answer.
            let client = OpenAIClient(configuration: configuration(for: remote), logger: logger)
            return ChatEndpoint(client: client, model: override ?? LocalEngineHost.chatModelName, contextWindow: LocalEngineHost.chatContextWindow, provider: provider)
        }
        let (client, _) = try remoteClient(for: .chat)
        let model = try await override.asyncOr { try await chatModelName(client: client, provider: provider) }
        return ChatEndpoint(client: client, model: model, contextWindow: nil, provider: provider)
    }

    /// Speech-to-text: whisper.cpp locally, or the remote provider.
    public func transcriber() throws -> any Transcriber {
        let provider = try provider(for: .stt)
        if provider.isLocal {
            try local.requireInstalled("stt")
            return WhisperTranscriber(layout: local.layout)
        }
        return try remoteClient(for: .stt).0
    }

    /// Text-to-speech: espeak-ng locally, or the remote provider.
    public func speechSynthesizer() throws -> any SpeechSynthesizer {
        let provider = try provider(for: .tts)
        if provider.isLocal {
            let espeak = EspeakSynthesizer()
            guard espeak.isAvailable else { throw LocalEngineError.notInstalled(component: "tts", missing: "espeak-ng") }
            return espeak
        }
        return try remoteClient(for: .tts).0
    }

    /// Embeddings: all-MiniLM-L6-v2 in Swift locally, or the remote provider.
    public func embedder() throws -> any Embedder {
        let provider = try provider(for: .embeddings)
        if provider.isLocal {
            try local.requireInstalled("embeddings")
            return try MiniLMEmbedder(modelDirectory: local.layout.miniLMDirectory)
        }
        return try remoteClient(for: .embeddings).0
    }

    /// Image generation (remote only: there is no local image model).
    public func imageGenerator() throws -> any ImageGenerator {
        try remoteClient(for: .images).0
    }

    /// The OpenAI client configuration for resolved provider settings.
    public func configuration(for provider: ProviderSettings) -> OpenAIConfiguration {
        var models = DefaultModels()
        switch provider.capability {
        case .chat: models.chat = provider.model
        case .embeddings: models.embeddings = provider.model
        case .stt: models.transcription = provider.model
        case .tts: models.speech = provider.model
        case .images: models.images = provider.model
        }
        if let voice = settings.value("tts.voice") { models.voice = voice }
        return OpenAIConfiguration(
            baseURL: provider.baseURL,
            apiKey: provider.apiKey,
            organization: settings.value("organization"),
            project: settings.value("project"),
            connectTimeout: .seconds(settings.integer("connect_timeout") ?? 10),
            readTimeout: .seconds(settings.integer("timeout") ?? 120),
            retryPolicy: RetryPolicy(maxRetries: settings.integer("retries") ?? 2),
            defaultModels: models
        )
    }

    /// The chat model to use: the configured one, or, for a server other than OpenAI with no model
    /// configured, the first model that server lists (llama.cpp and Ollama name theirs differently).
    public func chatModelName(client: OpenAIClient, provider: ProviderSettings) async throws -> String {
        if provider.modelSource != .defaultValue || provider.isOpenAI { return provider.model }
        if let listed = try? await client.models(), let first = listed.first {
            return first.id
        }
        return provider.model
    }

    /// A conversation engine on the configured chat provider, with options from the settings.
    public func engine(model override: String? = nil, temperature: Double? = nil, maxTokens: Int? = nil) async throws -> ConversationEngine {
        let endpoint = try await chatEndpoint(model: override)
        let options = EngineOptions(
            model: endpoint.model,
            temperature: temperature ?? settings.number("chat.temperature"),
            maxTokens: maxTokens ?? settings.integer("chat.max_tokens"),
            contextWindow: settings.integer("chat.context_window") ?? endpoint.contextWindow,
            reserve: settings.integer("chat.reserve") ?? 1024,
            titles: EngineOptions.TitleStyle(rawValue: settings.value("titles") ?? "model") ?? .model
        )
        return ConversationEngine(store: store, chatModel: endpoint.client, options: options, counter: tokenCounter(for: endpoint.model))
    }

    /// OpenAI's own tokenizer for its models when its ranks are installed (`sibyl models install tokenizers`),
    /// otherwise the documented estimate.
    public func tokenCounter(for model: String) -> any TokenCounter {
        guard let encoding = BPETokenizer.encoding(forModel: model),
              let tokenizer = try? BPETokenizer.load(encoding: encoding, directory: local.layout.root.appendingPathComponent("tokenizers")) else {
            return EstimatingTokenCounter()
        }
        return tokenizer
    }

    /// Stops the local engines this process started.
    public func shutdown() async {
        await local.shutdown()
    }

    /// The persona new conversations use.
    public var defaultPersona: String { settings.value("persona") ?? "assistant" }
}

extension Optional where Wrapped == String {
    /// The value, or the result of an async fallback.
    func asyncOr(_ fallback: () async throws -> String) async rethrows -> String {
        if let self { return self }
        return try await fallback()
    }
}
