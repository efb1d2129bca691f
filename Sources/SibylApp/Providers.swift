import Assistant
import Foundation
import LocalEngines
import Logging
public import OpenAIClient
public import SibylConfig
public import SibylCore
import Synchronization
import TextEmbedding
import Tokenizers

/// Resolves each capability to its provider, from the settings as they are now: the local engine,
/// or a remote OpenAI-compatible API. What is slow to make (a loaded model, a tokenizer, a model
/// name asked of a server) is made once and kept.
///
/// On a shared server each account has its own `Providers` over the same settings, engines and
/// caches, with the account's own stored keys (`personal`) tried before the shared ones.
public final class Providers: Sendable {
    let settings: LiveSettings
    let local: LocalEngineHost
    let logger: Logger
    /// An account's own keys, on a shared server; nil for the local user.
    let personal: (any SecretReading)?
    private let caches: Caches

    /// What is slow to make and the same for everyone: kept once per process.
    private final class Caches: Sendable {
        let modelNames = Mutex<[ProviderSettings: String]>([:])
        let tokenizers = Mutex<[String: BPETokenizer]>([:])
        let sentenceEmbedders = Mutex<[LocalEmbeddingModel: SentenceEmbedder]>([:])
        let toolboxes = ToolboxCache()
    }

    /// The MCP servers' toolbox, one for the process.
    var toolboxes: ToolboxCache { caches.toolboxes }

    convenience init(settings: LiveSettings, local: LocalEngineHost, logger: Logger) {
        self.init(settings: settings, local: local, logger: logger, personal: nil, caches: Caches())
    }

    private init(settings: LiveSettings, local: LocalEngineHost, logger: Logger, personal: (any SecretReading)?, caches: Caches) {
        self.settings = settings
        self.local = local
        self.logger = logger
        self.personal = personal
        self.caches = caches
    }

    /// The same providers, with an account's own keys tried first.
    func withOwnKeys(_ secrets: any SecretReading) -> Providers {
        Providers(settings: settings, local: local, logger: logger, personal: secrets, caches: caches)
    }

    /// Provider settings for a capability.
    public func provider(for capability: CapabilityKind) throws -> ProviderSettings {
        let current = settings.current
        return try current.provider(for: capability, secrets: current.secrets, personal: personal)
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
    /// A turn may also name a local model by its name while the provider is remote (a person
    /// picked it for a conversation).
    public func chatEndpoint(model override: String? = nil) async throws -> ChatEndpoint {
        let provider = try provider(for: .chat)
        let pickedLocal = override.flatMap { name in LocalChatModel.allCases.first { $0.name == name } }
        if provider.isLocal || pickedLocal != nil {
            let model = try pickedLocal ?? localChatModel(override)
            let server = try await local.chat(model, installing: installsAutomatically)
            var remote = provider
            remote.baseURL = try await server.baseURL()
            remote.apiKey = nil
            let client = OpenAIClient(configuration: configuration(for: remote), logger: logger)
            return ChatEndpoint(client: client, model: model.name, contextWindow: LocalEngineHost.chatContextWindow, provider: provider)
        }
        let (client, _) = try remoteClient(for: .chat)
        let model = try await override.asyncOr { try await chatModelName(client: client, provider: provider) }
        return ChatEndpoint(client: client, model: model, contextWindow: nil, provider: provider)
    }

    /// The local chat model a turn asks for by name, else the configured one (`chat.local_model`).
    public func localChatModel(_ name: String? = nil) throws -> LocalChatModel {
        if let name {
            guard let model = LocalChatModel.named(name) else { throw AssistantError.unknownLocalModel(name, known: LocalChatModel.choices) }
            return model
        }
        return settings.current[.chatLocalModel]
    }

    /// The chat model to use: the configured one, or, for a server other than OpenAI with no model
    /// configured, the first model that server lists (llama.cpp and Ollama name theirs differently).
    public func chatModelName(client: OpenAIClient, provider: ProviderSettings) async throws -> String {
        if provider.modelSource != .defaultValue || provider.isOpenAI { return provider.model }
        if let known = caches.modelNames.withLock({ $0[provider] }) { return known }
        guard let listed = try? await client.models(), let first = listed.first else { return provider.model }
        caches.modelNames.withLock { $0[provider] = first.id }
        return first.id
    }

    /// Speech-to-text: whisper.cpp locally (kept loaded in whisper-server), or the remote provider.
    /// A missing local engine is installed by the first transcription (`models.auto_install`).
    public func transcriber() throws -> any Transcriber {
        let provider = try provider(for: .stt)
        if provider.isLocal {
            if installsAutomatically, local.installer.status(of: "stt")?.installed == false { return InstallingTranscriber(host: local) }
            return try local.speechToText()
        }
        return try remoteClient(for: .stt).0
    }

    /// Whether a missing local engine is installed on first use (`models.auto_install`).
    var installsAutomatically: Bool { settings.current[.modelsAutoInstall] }

    /// Whether answers come from the local chat engine.
    public var chatsLocally: Bool { (try? provider(for: .chat).isLocal) == true }

    /// Whether speech-to-text runs on the local engine (which reads WAV only).
    public var transcribesLocally: Bool { (try? provider(for: .stt).isLocal) ?? true }

    /// Text-to-speech: Piper's voice or espeak-ng locally (espeak-ng also writes Piper's
    /// phonemes), or the remote provider.
    public func speechSynthesizer() async throws -> any SpeechSynthesizer {
        let provider = try provider(for: .tts)
        if provider.isLocal {
            // Without installing, espeak-ng alone speaks (Piper's voice is the better default).
            if installsAutomatically {
                try await local.ensureInstalled("tts", automatically: true)
            } else if !local.textToSpeech.espeak.isAvailable {
                throw LocalEngineError.notInstalled(component: "tts", missing: "espeak-ng")
            }
            return local.textToSpeech
        }
        return try remoteClient(for: .tts).0
    }

    /// Whether text-to-speech runs on the local engine.
    public var speaksLocally: Bool { (try? provider(for: .tts).isLocal) ?? true }

    /// Embeddings: the local sentence model in Swift (`embeddings.local_model`, loaded once), or
    /// the remote provider.
    public func embedder() async throws -> any Embedder {
        try await embeddingSetup().embedder
    }

    /// The embedder documents and questions are embedded with, its model name and token counter.
    public func embeddingSetup() async throws -> EmbeddingSetup {
        let provider = try provider(for: .embeddings)
        if provider.isLocal {
            let embedder = try await localSentenceEmbedder(settings.current[.embeddingsLocalModel])
            // The start and end tokens take two of the model's positions.
            return EmbeddingSetup(embedder: embedder, model: embedder.model.name, counter: embedder.tokenizer, limit: embedder.model.maxTokens - 2)
        }
        let (client, _) = try remoteClient(for: .embeddings)
        let model = provider.model.isEmpty ? client.configuration.defaultModels.embeddings : provider.model
        // OpenAI's embedding models read up to 8,191 tokens of cl100k_base.
        let counter: any TokenCounter = tokenizer(.cl100kBase) ?? EstimatingTokenCounter()
        return EmbeddingSetup(embedder: client, model: model, counter: counter, limit: 8191)
    }

    private func localSentenceEmbedder(_ choice: LocalEmbeddingModel) async throws -> SentenceEmbedder {
        try await local.ensureInstalled(choice.component, automatically: installsAutomatically)
        if let loaded = caches.sentenceEmbedders.withLock({ $0[choice] }) { return loaded }
        let model: SentenceModel = choice == .large ? .mpnet : .miniLM
        let loaded = try SentenceEmbedder(modelDirectory: local.layout.sentenceModelDirectory(model.name), model: model)
        return caches.sentenceEmbedders.withLock { kept in
            if let earlier = kept[choice] { return earlier }
            kept[choice] = loaded
            return loaded
        }
    }

    /// Image generation (remote only: there is no local image model).
    public func imageGenerator() throws -> any ImageGenerator {
        try remoteClient(for: .images).0
    }

    /// The OpenAI client configuration for resolved provider settings.
    public func configuration(for provider: ProviderSettings) -> OpenAIConfiguration {
        let settings = settings.current
        var models = DefaultModels()
        switch provider.capability {
        case .chat: models.chat = provider.model
        case .embeddings: models.embeddings = provider.model
        case .stt: models.transcription = provider.model
        case .tts: models.speech = provider.model
        case .images: models.images = provider.model
        }
        models.voice = settings[.ttsVoice]
        return OpenAIConfiguration(
            baseURL: provider.baseURL,
            apiKey: provider.apiKey,
            organization: settings[.organization],
            project: settings[.project],
            connectTimeout: .seconds(settings[.connectTimeout]),
            readTimeout: .seconds(settings[.timeout]),
            retryPolicy: RetryPolicy(maxRetries: settings[.retries]),
            defaultModels: models
        )
    }

    /// OpenAI's own tokenizer for its models when its ranks are installed (`models install tokenizers`),
    /// otherwise the documented estimate.
    public func tokenCounter(for model: String) -> any TokenCounter {
        guard let encoding = BPETokenizer.encoding(forModel: model), let tokenizer = tokenizer(encoding) else {
            return EstimatingTokenCounter()
        }
        return tokenizer
    }

    private func tokenizer(_ encoding: BPETokenizer.Encoding) -> BPETokenizer? {
        if let loaded = caches.tokenizers.withLock({ $0[encoding.rawValue] }) { return loaded }
        guard let loaded = try? BPETokenizer.load(encoding: encoding, directory: local.layout.root.appendingPathComponent("tokenizers")) else { return nil }
        caches.tokenizers.withLock { $0[encoding.rawValue] = loaded }
        return loaded
    }
}

/// The embedding side of the knowledge base: the embedder, its model name, and how it counts tokens.
public struct EmbeddingSetup: Sendable {
    public var embedder: any Embedder
    /// The name recorded per collection, so vectors from different models never mix.
    public var model: String
    /// The embedder's own token counter, for chunk sizes.
    public var counter: any TokenCounter
    /// The most tokens one text may have (special tokens excluded).
    public var limit: Int
}

/// The chat backend of a running Sibyl: the provider the settings name now, for every answer.
struct SettingsChatBackend: ChatBackend {
    let providers: Providers

    func chat(for turn: TurnOptions) async throws -> ChatSetup {
        let endpoint = try await providers.chatEndpoint(model: turn.model)
        let settings = providers.settings.current
        let options = EngineOptions(
            model: endpoint.model,
            temperature: settings[.chatTemperature],
            maxTokens: settings[.chatMaxTokens],
            contextWindow: settings[.chatContextWindow] ?? endpoint.contextWindow,
            reserve: settings[.chatReserve],
            titles: settings[.titles]
        )
        return ChatSetup(model: endpoint.client, options: options, counter: providers.tokenCounter(for: endpoint.model), tools: providers.tools(settings))
    }
}

extension Providers {
    /// OCR for scanned pages and images: tesseract. When the ocr component is missing (or some of
    /// its languages) and `models.auto_install` is on, the first scan installs it; when it is off,
    /// documents say which pages could not be read, and how to install it.
    public func textRecognizer() -> (any TextRecognizer)? {
        if installsAutomatically, local.installer.status(of: "ocr")?.installed == false {
            return InstallingTextRecognizer(host: local)
        }
        let tesseract = TesseractRecognizer()
        return tesseract.isAvailable ? tesseract : nil
    }
}

/// The local speech-to-text engines, installed the first time they are needed.
struct InstallingTranscriber: DraftingTranscriber {
    let host: LocalEngineHost

    func transcribe(_ audio: AudioFile, options: TranscriptionOptions) async throws -> Transcription {
        try await transcribe(audio, options: options, draft: nil)
    }

    func transcribe(_ audio: AudioFile, options: TranscriptionOptions, draft: Transcription?) async throws -> Transcription {
        try await host.ensureInstalled("stt", automatically: true)
        return try await host.speechToText().transcribe(audio, options: options, draft: draft)
    }
}

/// Tesseract, installed (with its languages) the first time it is needed.
struct InstallingTextRecognizer: TextRecognizer {
    let host: LocalEngineHost

    func recognize(_ image: Data, options: RecognitionOptions) async throws -> RecognizedText {
        try await host.ensureInstalled("ocr", automatically: true)
        return try await TesseractRecognizer().recognize(image, options: options)
    }
}
