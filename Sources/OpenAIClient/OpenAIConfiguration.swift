import Foundation
import SibylCore

/// Where an OpenAI-compatible server is and how to talk to it.
public struct OpenAIConfiguration: Sendable, Hashable {
    /// The API root, such as `https://api.openai.com/v1` or `http://127.0.0.1:8080/v1`; with
    /// several `endpoints`, the first.
    public var baseURL: String
    /// Every API root requests go to, in turn: one for most providers, several for a pool of
    /// servers with the same models (written as one string, separated by commas or spaces).
    public var endpoints: [String]
    /// How often a server of a pool that failed is checked until it answers again.
    public var failoverCooldown: Duration
    public var apiKey: String?
    public var organization: String?
    public var project: String?
    /// The longest wait for a TCP (and TLS) connection.
    public var connectTimeout: Duration
    /// The longest silence while waiting for bytes: before the first byte and between chunks.
    public var readTimeout: Duration
    public var retryPolicy: RetryPolicy
    /// Ask streaming chat for a final usage chunk (`stream_options.include_usage`).
    public var includeStreamUsage: Bool
    /// Models used when a request does not name one.
    public var defaultModels: DefaultModels

    /// The public OpenAI API.
    public static let openAIBaseURL = "https://api.openai.com/v1"

    public init(
        baseURL: String = OpenAIConfiguration.openAIBaseURL,
        apiKey: String? = nil,
        organization: String? = nil,
        project: String? = nil,
        connectTimeout: Duration = .seconds(10),
        readTimeout: Duration = .seconds(120),
        retryPolicy: RetryPolicy = RetryPolicy(),
        includeStreamUsage: Bool = true,
        defaultModels: DefaultModels = DefaultModels(),
        failoverCooldown: Duration = .seconds(10)
    ) {
        let endpoints = Self.endpoints(in: baseURL)
        self.endpoints = endpoints.isEmpty ? [""] : endpoints
        self.baseURL = self.endpoints[0]
        self.failoverCooldown = failoverCooldown
        self.apiKey = apiKey.flatMap { $0.isEmpty ? nil : $0 }
        self.organization = organization
        self.project = project
        self.connectTimeout = connectTimeout
        self.readTimeout = readTimeout
        self.retryPolicy = retryPolicy
        self.includeStreamUsage = includeStreamUsage
        self.defaultModels = defaultModels
    }

    /// The API roots in a base URL setting: one, or several separated by commas or white space,
    /// each without its trailing slashes.
    public static func endpoints(in baseURL: String) -> [String] {
        baseURL.split(whereSeparator: { $0 == "," || $0.isWhitespace }).map { piece in
            var endpoint = String(piece)
            while endpoint.hasSuffix("/") { endpoint.removeLast() }
            return endpoint
        }.filter { !$0.isEmpty }
    }

    /// Whether this configuration points at OpenAI's own API (which has stricter parameter rules).
    public var isOpenAI: Bool {
        URLComponents(string: baseURL)?.host?.lowercased() == "api.openai.com"
    }
}

/// The model each capability uses when a request does not name one.
public struct DefaultModels: Sendable, Hashable {
    public var chat: String
    public var embeddings: String
    public var transcription: String
    public var speech: String
    public var voice: String
    public var images: String

    public init(
        chat: String = "gpt-4o-mini",
        embeddings: String = "text-embedding-3-small",
        transcription: String = "whisper-1",
        speech: String = "tts-1",
        voice: String = "alloy",
        images: String = "dall-e-3"
    ) {
        self.chat = chat
        self.embeddings = embeddings
        self.transcription = transcription
        self.speech = speech
        self.voice = voice
        self.images = images
    }
}
