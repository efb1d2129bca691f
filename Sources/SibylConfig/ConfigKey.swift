import Foundation

/// The capabilities that can each use their own provider.
public enum CapabilityKind: String, Sendable, CaseIterable, Codable {
    case chat, embeddings, stt, tts, images

    /// Whether Sibyl ships a local engine for it (image generation has none).
    public var hasLocalEngine: Bool { self != .images }

    /// A name for people.
    public var title: String {
        switch self {
        case .chat: "chat"
        case .embeddings: "embeddings"
        case .stt: "speech-to-text"
        case .tts: "text-to-speech"
        case .images: "images"
        }
    }
}

/// A setting Sibyl understands, with its environment variable and default.
public struct ConfigKey: Sendable, Hashable {
    public enum ValueType: String, Sendable {
        case string, url, integer, number, choice
    }

    /// The dotted name used in the config file and by `sibyl config`.
    public var name: String
    public var type: ValueType
    /// Environment variables that set it, strongest first.
    public var environment: [String]
    public var defaultValue: String?
    public var summary: String
    /// Allowed values for `.choice`.
    public var choices: [String]

    init(_ name: String, _ type: ValueType, env: [String] = [], default defaultValue: String? = nil, choices: [String] = [], _ summary: String) {
        self.name = name
        self.type = type
        self.environment = env
        self.defaultValue = defaultValue
        self.summary = summary
        self.choices = choices
    }

    /// Where a setting is kept when several instances share a database.
    public enum Scope: String, Sendable {
        /// In the database, the same for every instance (models, providers, limits).
        case shared
        /// In each machine's config file: where it listens, its certificate files, its
        /// Bluetooth adapter and glasses, its microphone's levels.
        case machine
    }

    public var scope: Scope {
        Self.machineKeys.contains(name) || name.hasPrefix("voice.") ? .machine : .shared
    }

    private static let machineKeys: Set<String> = [
        "serve.host", "serve.port", "serve.tls_cert", "serve.tls_key", "glasses.device", "glasses.kind", "glasses.adapter",
    ]

    /// Checks a value a user wants to set; returns it normalised, or says what is wrong.
    public func validate(_ raw: String) -> Result<String, ConfigError> {
        let value = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        switch type {
        case .string:
            return .success(value)
        case .url:
            // One API root, or several servers with the same models, used in turn with failover.
            let urls = value.split(whereSeparator: { $0 == "," || $0.isWhitespace }).map(String.init)
            let valid = !urls.isEmpty && urls.allSatisfy { text in
                guard let url = URLComponents(string: text), let scheme = url.scheme else { return false }
                return ["http", "https"].contains(scheme.lowercased()) && url.host?.isEmpty == false
            }
            guard valid else {
                return .failure(.invalidValue(key: name, value: value, expected: "an http(s) URL such as http://127.0.0.1:8080/v1, or several separated by commas"))
            }
            return .success(urls.joined(separator: ", "))
        case .integer:
            guard let number = Int(value), number >= 0 else {
                return .failure(.invalidValue(key: name, value: value, expected: "a whole number"))
            }
            return .success(String(number))
        case .number:
            guard let number = Double(value), number.isFinite else {
                return .failure(.invalidValue(key: name, value: value, expected: "a number"))
            }
            return .success(value)
        case .choice:
            guard choices.contains(value) else {
                return .failure(.invalidValue(key: name, value: value, expected: "one of \(choices.joined(separator: ", "))"))
            }
            return .success(value)
        }
    }
}

extension ConfigKey {
    /// Every setting, in the order `sibyl config get` shows them.
    public static let all: [ConfigKey] = {
        var keys: [ConfigKey] = [
            ConfigKey("base_url", .url, env: ["OPENAI_BASE_URL"], "API root used by every capability without its own"),
            ConfigKey("organization", .string, env: ["OPENAI_ORG_ID"], "OpenAI organization id sent with requests"),
            ConfigKey("project", .string, env: ["OPENAI_PROJECT_ID"], "OpenAI project id sent with requests"),
            ConfigKey("timeout", .integer, env: ["SIBYL_TIMEOUT"], default: "120", "seconds of silence before a request fails"),
            ConfigKey("connect_timeout", .integer, env: ["SIBYL_CONNECT_TIMEOUT"], default: "10", "seconds to wait for a connection"),
            ConfigKey("retries", .integer, env: ["SIBYL_MAX_RETRIES"], default: "2", "retries after 408/409/429/5xx and connection failures"),
            ConfigKey("persona", .string, env: ["SIBYL_PERSONA"], default: "assistant", "persona for new conversations"),
            ConfigKey("titles", .choice, env: ["SIBYL_TITLES"], default: "model", choices: ["model", "first-words"], "how new conversations get their title"),
            ConfigKey("chat.temperature", .number, env: ["SIBYL_CHAT_TEMPERATURE"], "sampling temperature (provider default when unset)"),
            ConfigKey("chat.max_tokens", .integer, env: ["SIBYL_CHAT_MAX_TOKENS"], "longest answer in tokens (provider default when unset)"),
            ConfigKey("chat.context_window", .integer, env: ["SIBYL_CHAT_CONTEXT_WINDOW"], "the model's context size in tokens (known models are looked up)"),
            ConfigKey("chat.reserve", .integer, env: ["SIBYL_CHAT_RESERVE"], default: "1024", "tokens kept free for the answer when fitting history"),
            ConfigKey("tts.voice", .string, env: ["SIBYL_TTS_VOICE"], default: "alloy", "voice for text-to-speech"),
            ConfigKey("docs.collection", .string, env: ["SIBYL_DOCS_COLLECTION"], default: "default", "collection documents go to and answers come from"),
            ConfigKey("docs.chunk_tokens", .integer, env: ["SIBYL_DOCS_CHUNK_TOKENS"], default: "400", "passage size in the embedder's tokens (capped at its limit)"),
            ConfigKey("docs.overlap", .number, env: ["SIBYL_DOCS_OVERLAP"], default: "15", "percent of a passage repeated at the start of the next"),
            ConfigKey("docs.max_pdf_pages", .integer, env: ["SIBYL_DOCS_MAX_PDF_PAGES"], default: "5000", "most pages a PDF may have to be added"),
            ConfigKey("docs.max_extraction_seconds", .integer, env: ["SIBYL_DOCS_MAX_EXTRACTION_SECONDS"], default: "1800", "longest one file may take to read (OCR of scanned pages is the slow part)"),
            ConfigKey("docs.threshold", .number, env: ["SIBYL_DOCS_THRESHOLD"], default: "0.3", "cosine similarity a passage needs to ground an answer"),
            ConfigKey("docs.passages", .integer, env: ["SIBYL_DOCS_PASSAGES"], "passages an answer is given (unset: 3 with the local chat model, whose reading of a long prompt is slow, 5 with a remote one)"),
            ConfigKey("docs.index", .choice, env: ["SIBYL_DOCS_INDEX"], default: "automatic", choices: ["automatic", "exact", "hnsw"], "vector search: exact, HNSW, or by size (HNSW from 20,000 passages)"),
            ConfigKey("docs.fusion", .choice, default: "score", choices: ["score", "rank"], "hybrid search: weighted scaled scores, or reciprocal-rank fusion"),
            ConfigKey("docs.vector_weight", .number, default: "1", "weight of the vector ranking in hybrid search"),
            ConfigKey("docs.lexical_weight", .number, default: "0.2", "weight of the BM25 ranking in hybrid search"),
            ConfigKey("docs.vector_store", .choice, env: ["SIBYL_DOCS_VECTOR_STORE"], default: "embedded", choices: ["embedded", "pinecone"], "where passages' vectors are searched: embedded (the knowledge base itself) or pinecone (a Pinecone index; key from PINECONE_API_KEY or the stored key 'pinecone')"),
            ConfigKey("pinecone.index", .string, env: ["SIBYL_PINECONE_INDEX"], default: "sibyl", "Pinecone index the vectors go to (made, serverless and cosine, when missing)"),
            ConfigKey("pinecone.cloud", .string, env: ["SIBYL_PINECONE_CLOUD"], default: "aws", "cloud a new Pinecone index is made in (aws, gcp or azure)"),
            ConfigKey("pinecone.region", .string, env: ["SIBYL_PINECONE_REGION"], default: "us-east-1", "region a new Pinecone index is made in"),
            ConfigKey("pinecone.control_url", .url, env: ["SIBYL_PINECONE_CONTROL_URL"], default: "https://api.pinecone.io", "Pinecone's control plane (changed only for tests)"),
            ConfigKey("glasses.persona", .string, env: ["SIBYL_GLASSES_PERSONA"], default: "concise", "persona for questions asked through Monocle glasses"),
            ConfigKey("glasses.language", .string, env: ["SIBYL_GLASSES_LANGUAGE"], "language the wearer speaks (ISO 639-1), when known"),
            ConfigKey("glasses.vision_model", .string, env: ["SIBYL_GLASSES_VISION_MODEL"], "vision-capable chat model for photo questions from the glasses"),
            ConfigKey("glasses.device", .string, env: ["SIBYL_GLASSES_DEVICE"], "Bluetooth address of the paired glasses (set by pairing)"),
            ConfigKey("glasses.kind", .choice, env: ["SIBYL_GLASSES_KIND"], default: "monocle", choices: ["monocle", "frame"], "which glasses are paired: monocle or frame (set by pairing)"),
            ConfigKey("glasses.adapter", .string, env: ["SIBYL_GLASSES_ADAPTER"], default: "hci0", "Bluetooth adapter for the glasses"),
            ConfigKey("serve.host", .string, env: ["SIBYL_SERVE_HOST"], default: "127.0.0.1", "address the HTTP server (sibyl serve) listens on"),
            ConfigKey("serve.port", .integer, env: ["SIBYL_SERVE_PORT"], default: "8080", "port the HTTP server listens on"),
            ConfigKey("serve.max_body_mb", .integer, env: ["SIBYL_SERVE_MAX_BODY_MB"], default: "2", "largest JSON request body, in MB"),
            ConfigKey("serve.max_upload_mb", .integer, env: ["SIBYL_SERVE_MAX_UPLOAD_MB"], default: "100", "largest upload (documents, audio, images), in MB"),
            ConfigKey("serve.max_upload_files", .integer, env: ["SIBYL_SERVE_MAX_UPLOAD_FILES"], default: "100", "most files in one upload"),
            ConfigKey("serve.max_turns_per_client", .integer, env: ["SIBYL_SERVE_MAX_TURNS_PER_CLIENT"], default: "4", "answers one client may have under way at once"),
            ConfigKey("serve.auth", .choice, env: ["SIBYL_SERVE_AUTH"], default: "auto", choices: ["auto", "none", "accounts"], "who may call the server: accounts (sign-in or API token), none (loopback only), or auto (accounts when any exist or the address is not loopback)"),
            ConfigKey("serve.secure_cookies", .choice, env: ["SIBYL_SERVE_SECURE_COOKIES"], default: "off", choices: ["on", "off"], "mark the session cookie Secure: on when clients reach the server over HTTPS (a TLS reverse proxy)"),
            ConfigKey("serve.idle_timeout", .integer, env: ["SIBYL_SERVE_IDLE_TIMEOUT"], default: "60", "seconds a connection may send nothing before it is closed (slow or silent clients)"),
            ConfigKey("serve.tls_cert", .string, env: ["SIBYL_SERVE_TLS_CERT"], "HTTPS: the PEM certificate chain file (with serve.tls_key)"),
            ConfigKey("serve.tls_key", .string, env: ["SIBYL_SERVE_TLS_KEY"], "HTTPS: the PEM private key file (owner-only; with serve.tls_cert)"),
            ConfigKey("serve.trusted_proxies", .string, env: ["SIBYL_SERVE_TRUSTED_PROXIES"], "reverse proxies (addresses, comma-separated) whose X-Forwarded-For and X-Forwarded-Proto are believed; none by default"),
            ConfigKey("serve.shutdown_grace", .integer, env: ["SIBYL_SERVE_SHUTDOWN_GRACE"], default: "10", "seconds answers under way get to finish on shutdown before they are saved as cancelled"),
            ConfigKey("chat.local_model", .choice, env: ["SIBYL_CHAT_LOCAL_MODEL"], default: "default", choices: ["default", "fast"], "local chat model: default (Qwen2.5-Coder 1.5B, right more often) or fast (0.5B, quicker and smaller, from the chat-fast component)"),
            ConfigKey("voice.threshold_db", .number, env: ["SIBYL_VOICE_THRESHOLD_DB"], default: "-45", "loudness below which sound never counts as speech (dBFS)"),
            ConfigKey("voice.margin_db", .number, env: ["SIBYL_VOICE_MARGIN_DB"], default: "12", "how far above the background noise speech must be (dB)"),
            ConfigKey("voice.onset_ms", .integer, env: ["SIBYL_VOICE_ONSET_MS"], default: "120", "loud time before speech counts as begun (ms)"),
            ConfigKey("voice.hangover_ms", .integer, env: ["SIBYL_VOICE_HANGOVER_MS"], default: "900", "quiet time after speech before recording stops (ms)"),
            ConfigKey("voice.wait_seconds", .integer, env: ["SIBYL_VOICE_WAIT_SECONDS"], default: "10", "how long to wait for speech to begin (s)"),
            ConfigKey("voice.max_seconds", .integer, env: ["SIBYL_VOICE_MAX_SECONDS"], default: "30", "longest recording (s)"),
        ]
        let defaultModels: [CapabilityKind: String] = [
            .chat: "gpt-4o-mini", .embeddings: "text-embedding-3-small", .stt: "whisper-1", .tts: "tts-1", .images: "dall-e-3",
        ]
        for capability in CapabilityKind.allCases {
            let prefix = "SIBYL_\(capability.rawValue.uppercased())"
            keys.append(ConfigKey("\(capability.rawValue).base_url", .url, env: ["\(prefix)_BASE_URL"], "API root for \(capability.title)"))
            keys.append(ConfigKey("\(capability.rawValue).model", .string, env: ["\(prefix)_MODEL"], default: defaultModels[capability], "model for \(capability.title)"))
            keys.append(ConfigKey("\(capability.rawValue).key", .string, default: "openai", "name of the stored key for \(capability.title)"))
            if capability.hasLocalEngine {
                keys.append(ConfigKey(
                    "\(capability.rawValue).provider", .choice, env: ["\(prefix)_PROVIDER"], default: "auto", choices: ["auto", "local", "remote"],
                    "local engine or remote API for \(capability.title); auto = local unless a base URL or key is set"
                ))
            }
        }
        return keys
    }()

    /// Looks a setting up by name.
    public static func named(_ name: String) -> ConfigKey? {
        all.first { $0.name == name }
    }
}
