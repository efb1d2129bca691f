public import SibylCore

// Every setting Sibyl understands, declared once: name, type, default, environment variables,
// where it is kept and what it means. `ConfigKey.all` lists them in the order `sibyl config get`
// shows them.

extension Setting {
    // MARK: Providers

    /// The API root every capability uses unless it names its own.
    public static var baseURL: Setting<String?> {
        .init("base_url", env: ["OPENAI_BASE_URL"], default: nil, type: .url, "API root used by every capability without its own")
    }
    public static var organization: Setting<String?> {
        .init("organization", env: ["OPENAI_ORG_ID"], default: nil, "OpenAI organization id sent with requests")
    }
    public static var project: Setting<String?> {
        .init("project", env: ["OPENAI_PROJECT_ID"], default: nil, "OpenAI project id sent with requests")
    }
    public static var timeout: Setting<Int> {
        .init("timeout", env: ["SIBYL_TIMEOUT"], default: 120, "seconds of silence before a request fails")
    }
    public static var connectTimeout: Setting<Int> {
        .init("connect_timeout", env: ["SIBYL_CONNECT_TIMEOUT"], default: 10, "seconds to wait for a connection")
    }
    public static var retries: Setting<Int> {
        .init("retries", env: ["SIBYL_MAX_RETRIES"], default: 2, "retries after 408/409/429/5xx and connection failures")
    }

    // MARK: Conversations

    public static var persona: Setting<String> {
        .init("persona", env: ["SIBYL_PERSONA"], default: "assistant", "persona for new conversations")
    }
    public static var titles: Setting<TitleStyle> {
        .init("titles", env: ["SIBYL_TITLES"], default: .model, "how new conversations get their title")
    }
    public static var chatTemperature: Setting<Double?> {
        .init("chat.temperature", env: ["SIBYL_CHAT_TEMPERATURE"], default: nil, "sampling temperature (provider default when unset)")
    }
    public static var chatMaxTokens: Setting<Int?> {
        .init("chat.max_tokens", env: ["SIBYL_CHAT_MAX_TOKENS"], default: nil, "longest answer in tokens (provider default when unset)")
    }
    public static var chatContextWindow: Setting<Int?> {
        .init("chat.context_window", env: ["SIBYL_CHAT_CONTEXT_WINDOW"], default: nil, "the model's context size in tokens (known models are looked up)")
    }
    public static var chatReserve: Setting<Int> {
        .init("chat.reserve", env: ["SIBYL_CHAT_RESERVE"], default: 1024, "tokens kept free for the answer when fitting history")
    }
    public static var ttsVoice: Setting<String> {
        .init("tts.voice", env: ["SIBYL_TTS_VOICE"], default: "alloy", "voice for text-to-speech")
    }

    // MARK: Tools

    public static var toolsEnabled: Setting<Bool> {
        .init("tools.enabled", env: ["SIBYL_TOOLS"], default: false, "answers may call the tools of the MCP servers in tools.servers (the calls are shown and cited)")
    }
    public static var toolsServers: Setting<ToolServerList> {
        .init(
            "tools.servers", env: ["SIBYL_TOOLS_SERVERS"], default: ToolServerList(), scope: .machine,
            "MCP servers answers may use: NAME=COMMAND (started by Sibyl) or NAME=URL, separated by ';'"
        )
    }
    public static var toolsTimeout: Setting<Int> {
        .init("tools.timeout", env: ["SIBYL_TOOLS_TIMEOUT"], default: 60, "seconds a tool call may take before the answer goes on without it")
    }

    // MARK: Memory

    public static var memoryPropose: Setting<Bool> {
        .init("memory.propose", env: ["SIBYL_MEMORY_PROPOSE"], default: true, "propose facts about you from a conversation once it goes quiet (one short model call per conversation)")
    }
    public static var memoryAutoAccept: Setting<Bool> {
        .init("memory.auto_accept", env: ["SIBYL_MEMORY_AUTO_ACCEPT"], default: false, "use proposed facts at once, without waiting for you to accept them")
    }
    public static var memoryQuietMinutes: Setting<Int> {
        .init("memory.quiet_minutes", env: ["SIBYL_MEMORY_QUIET_MINUTES"], default: 10, "minutes without a new message before a conversation is read for facts")
    }

    // MARK: Documents

    public static var docsCollection: Setting<String> {
        .init("docs.collection", env: ["SIBYL_DOCS_COLLECTION"], default: "default", "collection documents go to and answers come from")
    }
    public static var docsChunkTokens: Setting<Int> {
        .init("docs.chunk_tokens", env: ["SIBYL_DOCS_CHUNK_TOKENS"], default: RetrievalDefaults.chunkTokens, "passage size in the embedder's tokens (capped at its limit)")
    }
    public static var docsOverlap: Setting<Double> {
        .init("docs.overlap", env: ["SIBYL_DOCS_OVERLAP"], default: RetrievalDefaults.overlapPercent, "percent of a passage repeated at the start of the next")
    }
    public static var docsMaxPDFPages: Setting<Int> {
        .init("docs.max_pdf_pages", env: ["SIBYL_DOCS_MAX_PDF_PAGES"], default: 5_000, "most pages a PDF may have to be added")
    }
    public static var docsMaxExtractionSeconds: Setting<Int> {
        .init(
            "docs.max_extraction_seconds", env: ["SIBYL_DOCS_MAX_EXTRACTION_SECONDS"], default: 1_800,
            "longest one file may take to read (OCR of scanned pages is the slow part)"
        )
    }
    public static var docsOCRLanguages: Setting<OCRLanguages> {
        .init(
            "docs.ocr_languages", env: ["SIBYL_DOCS_OCR_LANGUAGES"], default: .english,
            "languages scanned pages and images are read in: en, ko, id (or tesseract's codes), separated by commas; a document may name its own"
        )
    }
    public static var docsThreshold: Setting<Double> {
        .init("docs.threshold", env: ["SIBYL_DOCS_THRESHOLD"], default: RetrievalDefaults.threshold, "cosine similarity a passage needs to ground an answer")
    }
    public static var docsPassages: Setting<Int?> {
        .init(
            "docs.passages", env: ["SIBYL_DOCS_PASSAGES"], default: nil,
            "passages an answer is given (unset: \(RetrievalDefaults.localPassages) with the local chat model, whose reading of a long prompt is slow, \(RetrievalDefaults.passages) with a remote one)"
        )
    }
    public static var docsIndex: Setting<IndexChoice> {
        .init("docs.index", env: ["SIBYL_DOCS_INDEX"], default: .automatic, "vector search: exact, HNSW, or by size (HNSW from 20,000 passages)")
    }
    public static var docsFusion: Setting<FusionMethod> {
        .init("docs.fusion", default: .score, "hybrid search: weighted scaled scores, or reciprocal-rank fusion")
    }
    public static var docsVectorWeight: Setting<Double> {
        .init("docs.vector_weight", default: RetrievalDefaults.vectorWeight, "weight of the vector ranking in hybrid search")
    }
    public static var docsLexicalWeight: Setting<Double> {
        .init("docs.lexical_weight", default: RetrievalDefaults.lexicalWeight, "weight of the BM25 ranking in hybrid search")
    }
    public static var docsVectorStore: Setting<VectorStoreKind> {
        .init(
            "docs.vector_store", env: ["SIBYL_DOCS_VECTOR_STORE"], default: .embedded,
            "where passages' vectors are searched: embedded (the knowledge base itself) or pinecone (a Pinecone index; key from PINECONE_API_KEY or the stored key 'pinecone')"
        )
    }

    // MARK: Pinecone

    public static var pineconeIndex: Setting<String> {
        .init("pinecone.index", env: ["SIBYL_PINECONE_INDEX"], default: "sibyl", "Pinecone index the vectors go to (made, serverless and cosine, when missing)")
    }
    public static var pineconeCloud: Setting<String> {
        .init("pinecone.cloud", env: ["SIBYL_PINECONE_CLOUD"], default: "aws", "cloud a new Pinecone index is made in (aws, gcp or azure)")
    }
    public static var pineconeRegion: Setting<String> {
        .init("pinecone.region", env: ["SIBYL_PINECONE_REGION"], default: "us-east-1", "region a new Pinecone index is made in")
    }
    public static var pineconeControlURL: Setting<String> {
        .init(
            "pinecone.control_url", env: ["SIBYL_PINECONE_CONTROL_URL"], default: "https://api.pinecone.io", type: .url,
            "Pinecone's control plane (changed only for tests)"
        )
    }

    // MARK: Glasses

    public static var glassesPersona: Setting<String> {
        .init("glasses.persona", env: ["SIBYL_GLASSES_PERSONA"], default: "concise", "persona for questions asked through the glasses (Monocle, Frame, the Noa app)")
    }
    public static var glassesLanguage: Setting<String?> {
        .init("glasses.language", env: ["SIBYL_GLASSES_LANGUAGE"], default: nil, "language the wearer speaks (ISO 639-1), when known")
    }
    public static var glassesVisionModel: Setting<String?> {
        .init("glasses.vision_model", env: ["SIBYL_GLASSES_VISION_MODEL"], default: nil, "vision-capable chat model for photo questions from the glasses")
    }
    public static var glassesDocuments: Setting<Bool> {
        .init("glasses.documents", env: ["SIBYL_GLASSES_DOCUMENTS"], default: false, "answer questions from the glasses and the Noa app from your documents, with a short source line")
    }
    public static var glassesTranslateTo: Setting<String?> {
        .init("glasses.translate_to", env: ["SIBYL_GLASSES_TRANSLATE_TO"], default: nil, "translate what the wearer says (glasses, the Noa app) into this language (a name, e.g. Korean) instead of answering it")
    }
    public static var glassesSpokenAnswers: Setting<Bool> {
        .init("glasses.spoken_answers", env: ["SIBYL_GLASSES_SPOKEN_ANSWERS"], default: false, "send the Noa app each answer as speech too (the app plays it when its speech setting is on)")
    }
    public static var glassesVoice: Setting<String?> {
        .init("glasses.voice", env: ["SIBYL_GLASSES_VOICE"], default: nil, "voice the glasses' spoken answers use (the Noa app plays them); unset: tts.voice")
    }
    public static var glassesDevice: Setting<String?> {
        .init("glasses.device", env: ["SIBYL_GLASSES_DEVICE"], default: nil, scope: .machine, "Bluetooth address of the paired glasses (set by pairing)")
    }
    public static var glassesKind: Setting<GlassesKind> {
        .init("glasses.kind", env: ["SIBYL_GLASSES_KIND"], default: .monocle, scope: .machine, "which glasses are paired: monocle or frame (set by pairing)")
    }
    public static var glassesAdapter: Setting<String> {
        .init("glasses.adapter", env: ["SIBYL_GLASSES_ADAPTER"], default: "hci0", scope: .machine, "Bluetooth adapter for the glasses")
    }

    // MARK: The HTTP server

    public static var serveHost: Setting<String> {
        .init("serve.host", env: ["SIBYL_SERVE_HOST"], default: "127.0.0.1", scope: .machine, "address the HTTP server (sibyl serve) listens on")
    }
    public static var servePort: Setting<Int> {
        .init("serve.port", env: ["SIBYL_SERVE_PORT"], default: 8080, scope: .machine, "port the HTTP server listens on")
    }
    public static var serveMaxBodyMB: Setting<Int> {
        .init("serve.max_body_mb", env: ["SIBYL_SERVE_MAX_BODY_MB"], default: 2, "largest JSON request body, in MB")
    }
    public static var serveMaxUploadMB: Setting<Int> {
        .init("serve.max_upload_mb", env: ["SIBYL_SERVE_MAX_UPLOAD_MB"], default: 100, "largest upload (documents, audio, images), in MB")
    }
    public static var serveMaxUploadFiles: Setting<Int> {
        .init("serve.max_upload_files", env: ["SIBYL_SERVE_MAX_UPLOAD_FILES"], default: 100, "most files in one upload")
    }
    public static var serveMaxTurnsPerClient: Setting<Int> {
        .init("serve.max_turns_per_client", env: ["SIBYL_SERVE_MAX_TURNS_PER_CLIENT"], default: 4, "answers one client may have under way at once")
    }
    public static var serveAuth: Setting<AuthSetting> {
        .init(
            "serve.auth", env: ["SIBYL_SERVE_AUTH"], default: .auto,
            "who may call the server: accounts (sign-in or API token), none (loopback only), or auto (accounts when any exist or the address is not loopback)"
        )
    }
    public static var serveSecureCookies: Setting<Bool> {
        .init(
            "serve.secure_cookies", env: ["SIBYL_SERVE_SECURE_COOKIES"], default: false,
            "mark the session cookie Secure: on when clients reach the server over HTTPS (a TLS reverse proxy)"
        )
    }
    public static var serveIdleTimeout: Setting<Int> {
        .init("serve.idle_timeout", env: ["SIBYL_SERVE_IDLE_TIMEOUT"], default: 60, "seconds a connection may send nothing before it is closed (slow or silent clients)")
    }
    public static var serveTLSCertificate: Setting<String?> {
        .init("serve.tls_cert", env: ["SIBYL_SERVE_TLS_CERT"], default: nil, scope: .machine, "HTTPS: the PEM certificate chain file (with serve.tls_key)")
    }
    public static var serveTLSKey: Setting<String?> {
        .init("serve.tls_key", env: ["SIBYL_SERVE_TLS_KEY"], default: nil, scope: .machine, "HTTPS: the PEM private key file (owner-only; with serve.tls_cert)")
    }
    public static var serveTrustedProxies: Setting<String?> {
        .init(
            "serve.trusted_proxies", env: ["SIBYL_SERVE_TRUSTED_PROXIES"], default: nil,
            "reverse proxies (addresses, comma-separated) whose X-Forwarded-For and X-Forwarded-Proto are believed; none by default"
        )
    }
    public static var serveShutdownGrace: Setting<Int> {
        .init(
            "serve.shutdown_grace", env: ["SIBYL_SERVE_SHUTDOWN_GRACE"], default: 10,
            "seconds answers under way get to finish on shutdown before they are saved as cancelled"
        )
    }

    // MARK: Local engines

    public static var chatLocalModel: Setting<LocalChatModel> {
        .init(
            "chat.local_model", env: ["SIBYL_CHAT_LOCAL_MODEL"], default: .standard,
            "local chat model: default (Qwen2.5-Coder 1.5B, right more often) or fast (0.5B, quicker and smaller, from the chat-fast component)"
        )
    }
    public static var embeddingsLocalModel: Setting<LocalEmbeddingModel> {
        .init(
            "embeddings.local_model", env: ["SIBYL_EMBEDDINGS_LOCAL_MODEL"], default: .standard,
            "local embedding model: default (all-MiniLM-L6-v2) or large (all-mpnet-base-v2 from the embeddings-large component: finds more, about six times slower to add documents); documents are embedded again after a change"
        )
    }
    public static var modelsAutoInstall: Setting<Bool> {
        .init(
            "models.auto_install", env: ["SIBYL_MODELS_AUTO_INSTALL"], default: true, scope: .machine,
            "install a missing local engine (with progress) the first time something needs it; off: fail, naming the install command"
        )
    }

    // MARK: Voice (each machine's microphone)

    public static var voiceThresholdDB: Setting<Double> {
        .init("voice.threshold_db", env: ["SIBYL_VOICE_THRESHOLD_DB"], default: -45, scope: .machine, "loudness below which sound never counts as speech (dBFS)")
    }
    public static var voiceMarginDB: Setting<Double> {
        .init("voice.margin_db", env: ["SIBYL_VOICE_MARGIN_DB"], default: 12, scope: .machine, "how far above the background noise speech must be (dB)")
    }
    public static var voiceOnsetMilliseconds: Setting<Int> {
        .init("voice.onset_ms", env: ["SIBYL_VOICE_ONSET_MS"], default: 120, scope: .machine, "loud time before speech counts as begun (ms)")
    }
    public static var voiceHangoverMilliseconds: Setting<Int?> {
        .init("voice.hangover_ms", env: ["SIBYL_VOICE_HANGOVER_MS"], default: nil, scope: .machine, "time without speech before a question counts as ended (ms); unset: 500 with the silero detector, 900 with energy")
    }
    public static var voiceDetector: Setting<VoiceDetectorKind> {
        .init("voice.detector", env: ["SIBYL_VOICE_DETECTOR"], default: .silero, scope: .machine, "how the end of speech is heard: silero (a neural detector, from the stt component) or energy (loudness; used when Silero is not installed)")
    }
    public static var voiceWaitSeconds: Setting<Int> {
        .init("voice.wait_seconds", env: ["SIBYL_VOICE_WAIT_SECONDS"], default: 10, scope: .machine, "how long to wait for speech to begin (s)")
    }
    public static var voiceMaxSeconds: Setting<Int> {
        .init("voice.max_seconds", env: ["SIBYL_VOICE_MAX_SECONDS"], default: 30, scope: .machine, "longest recording (s)")
    }
    public static var voiceLanguage: Setting<String?> {
        .init("voice.language", env: ["SIBYL_VOICE_LANGUAGE"], default: nil, "language spoken questions are in (ISO 639-1: en, ko, id…; auto: detected on each question, which takes longer); unset: the page's or the terminal's language")
    }

    // MARK: Each capability's provider

    /// The API root of one capability.
    public static func baseURL(for capability: CapabilityKind) -> Setting<String?> {
        .init("\(capability.rawValue).base_url", env: ["\(capability.environmentPrefix)_BASE_URL"], default: nil, type: .url, "API root for \(capability.title)")
    }

    /// The model of one capability.
    public static func model(for capability: CapabilityKind) -> Setting<String> {
        .init("\(capability.rawValue).model", env: ["\(capability.environmentPrefix)_MODEL"], default: capability.defaultModel, "model for \(capability.title)")
    }

    /// The name of the stored key one capability uses.
    public static func keyName(for capability: CapabilityKind) -> Setting<String> {
        .init("\(capability.rawValue).key", default: "openai", "name of the stored key for \(capability.title)")
    }

    /// Whether one capability uses the local engine (capabilities with one only).
    public static func provider(for capability: CapabilityKind) -> Setting<ProviderPreference> {
        .init(
            "\(capability.rawValue).provider", env: ["\(capability.environmentPrefix)_PROVIDER"], default: .auto,
            "local engine or remote API for \(capability.title); auto = local unless a base URL or key is set"
        )
    }
}

extension CapabilityKind {
    /// The start of its environment variables' names (`SIBYL_CHAT`).
    public var environmentPrefix: String { "SIBYL_\(rawValue.uppercased())" }

    /// The OpenAI model it uses when none is configured.
    public var defaultModel: String {
        switch self {
        case .chat: "gpt-4o-mini"
        case .embeddings: "text-embedding-3-small"
        case .stt: "whisper-1"
        case .tts: "tts-1"
        case .images: "dall-e-3"
        }
    }
}

/// Any value type serves to name a declared setting outside a typed context.
private typealias Declared = Setting<String>

extension ConfigKey {
    /// Every setting, in the order `sibyl config get` shows them.
    public static let all: [ConfigKey] = {
        var keys: [ConfigKey] = [
            Declared.baseURL.key, Declared.organization.key, Declared.project.key, Declared.timeout.key, Declared.connectTimeout.key,
            Declared.retries.key, Declared.persona.key, Declared.titles.key, Declared.chatTemperature.key, Declared.chatMaxTokens.key,
            Declared.chatContextWindow.key, Declared.chatReserve.key, Declared.ttsVoice.key, Declared.toolsEnabled.key, Declared.toolsServers.key,
            Declared.toolsTimeout.key, Declared.memoryPropose.key, Declared.memoryAutoAccept.key, Declared.memoryQuietMinutes.key, Declared.docsCollection.key,
            Declared.docsChunkTokens.key, Declared.docsOverlap.key, Declared.docsMaxPDFPages.key, Declared.docsMaxExtractionSeconds.key, Declared.docsOCRLanguages.key,
            Declared.docsThreshold.key, Declared.docsPassages.key, Declared.docsIndex.key, Declared.docsFusion.key,
            Declared.docsVectorWeight.key, Declared.docsLexicalWeight.key, Declared.docsVectorStore.key, Declared.pineconeIndex.key,
            Declared.pineconeCloud.key, Declared.pineconeRegion.key, Declared.pineconeControlURL.key, Declared.glassesPersona.key,
            Declared.glassesLanguage.key, Declared.glassesVisionModel.key, Declared.glassesDocuments.key, Declared.glassesTranslateTo.key,
            Declared.glassesSpokenAnswers.key, Declared.glassesVoice.key, Declared.glassesDevice.key, Declared.glassesKind.key,
            Declared.glassesAdapter.key, Declared.serveHost.key, Declared.servePort.key, Declared.serveMaxBodyMB.key,
            Declared.serveMaxUploadMB.key, Declared.serveMaxUploadFiles.key, Declared.serveMaxTurnsPerClient.key, Declared.serveAuth.key,
            Declared.serveSecureCookies.key, Declared.serveIdleTimeout.key, Declared.serveTLSCertificate.key, Declared.serveTLSKey.key,
            Declared.serveTrustedProxies.key, Declared.serveShutdownGrace.key, Declared.chatLocalModel.key, Declared.embeddingsLocalModel.key, Declared.modelsAutoInstall.key, Declared.voiceThresholdDB.key,
            Declared.voiceMarginDB.key, Declared.voiceOnsetMilliseconds.key, Declared.voiceHangoverMilliseconds.key, Declared.voiceDetector.key,
            Declared.voiceWaitSeconds.key, Declared.voiceMaxSeconds.key, Declared.voiceLanguage.key,
        ]
        for capability in CapabilityKind.allCases {
            keys.append(Declared.baseURL(for: capability).key)
            keys.append(Declared.model(for: capability).key)
            keys.append(Declared.keyName(for: capability).key)
            if capability.hasLocalEngine { keys.append(Declared.provider(for: capability).key) }
        }
        return keys
    }()

    private static let byName: [String: ConfigKey] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    /// Looks a setting up by the name a person typed (`sibyl config set NAME`, the settings API).
    public static func named(_ name: String) -> ConfigKey? {
        byName[name]
    }
}
