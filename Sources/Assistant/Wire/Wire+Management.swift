public import Foundation
public import Knowledge
import SibylConfig
public import SibylCore
public import Storage

extension Wire {
    /// An entry of the operations log.
    public struct LogEntry: Sendable, Hashable, Codable {
        public var id: Int64
        public var at: Date
        /// `debug`, `info`, `warning` or `error`.
        public var level: Storage.LogEntry.Level
        /// What kind of operation: `ask`, `docs.add`, `models.install` …
        public var operation: String
        public var message: String
        public var details: JSONValue?

        public init(_ entry: Storage.LogEntry) {
            id = entry.id
            at = entry.date
            level = entry.level
            operation = entry.category
            message = entry.message
            details = entry.details.flatMap(JSONValue.init(parsing:))
        }
    }

    /// A setting: its value, where the value comes from, and what it means.
    public struct Setting: Sendable, Hashable, Codable {
        public var key: String
        public var value: String?
        /// `environment`, `file`, `database` (the one several instances share), `default` or `unset`.
        public var source: String
        /// The environment variable the value comes from, when it does.
        public var variable: String?
        public var defaultValue: String?
        /// `string`, `url`, `integer`, `number` or `choice`.
        public var type: String
        public var choices: [String]?
        public var summary: String
        /// Environment variables that set it, strongest first.
        public var environment: [String]

        public init(_ info: SettingInfo) {
            key = info.key.name
            value = info.value
            switch info.source {
            case .environment(let name):
                source = "environment"
                variable = name
            case .file: source = "file"
            case .database: source = "database"
            case .defaultValue: source = "default"
            case .unset: source = "unset"
            }
            defaultValue = info.key.defaultValue
            type = info.key.type.rawValue
            choices = info.key.choices.isEmpty ? nil : info.key.choices
            summary = info.key.summary
            environment = info.key.environment
        }
    }

    /// An API key's name and where it comes from: the key itself is never returned.
    public struct Key: Sendable, Hashable, Codable {
        public var name: String
        public var source: String
        /// The first 3 and last 4 characters, to tell keys apart (`•••` for a shared key shown to
        /// someone other than an administrator).
        public var masked: String
        /// `own` (the caller's account's), `shared` (everyone's, set by administrators) or `environment`.
        public var scope: String

        public init(_ info: KeyInfo) {
            name = info.name
            source = info.source
            masked = info.masked
            scope = info.scope?.rawValue ?? "environment"
        }
    }

    /// A persona.
    public struct Persona: Sendable, Hashable, Codable {
        public var name: String
        public var systemPrompt: String
        public var model: String?
        public var temperature: Double?
        public var maxTokens: Int?
        public var topP: Double?
        public var presencePenalty: Double?
        public var frequencyPenalty: Double?
        public var summary: String?
        public var builtIn: Bool

        public init(_ persona: SibylCore.Persona) {
            name = persona.name
            systemPrompt = persona.systemPrompt
            model = persona.model
            temperature = persona.sampling.temperature
            maxTokens = persona.sampling.maxTokens
            topP = persona.sampling.topP
            presencePenalty = persona.sampling.presencePenalty
            frequencyPenalty = persona.sampling.frequencyPenalty
            summary = persona.summary
            builtIn = persona.isBuiltIn
        }
    }

    /// One of the user's MCP servers (`tools.servers`): where it is, and the tools it offers now
    /// or why it offers none.
    public struct ToolServer: Sendable, Hashable, Codable {
        public struct Tool: Sendable, Hashable, Codable {
            /// The tool's own name on the server.
            public var name: String
            /// The name answers call it by (the server's name first).
            public var calledAs: String
            public var description: String

            public init(name: String, calledAs: String, description: String) {
                self.name = name
                self.calledAs = calledAs
                self.description = description
            }
        }

        public var name: String
        /// `command` (started by Sibyl, over stdio) or `url` (streamable HTTP).
        public var kind: String
        /// The command line or the URL.
        public var target: String
        public var tools: [Tool]
        /// Why it offers no tools, when it cannot be reached.
        public var problem: String?

        public init(name: String, kind: String, target: String, tools: [Tool], problem: String?) {
            self.name = name
            self.kind = kind
            self.target = target
            self.tools = tools
            self.problem = problem
        }
    }

    /// Whether answers may use tools, and the servers they would come from.
    public struct ToolsReport: Sendable, Hashable, Codable {
        /// `tools.enabled`.
        public var enabled: Bool
        public var servers: [ToolServer]

        public init(enabled: Bool, servers: [ToolServer]) {
            self.enabled = enabled
            self.servers = servers
        }
    }

    /// A local engine or model component.
    public struct ModelComponent: Sendable, Hashable, Codable {
        public var name: String
        public var title: String
        public var installed: Bool
        public var missing: [String]
        public var bytesOnDisk: Int64

        public init(name: String, title: String, installed: Bool, missing: [String], bytesOnDisk: Int64) {
            self.name = name
            self.title = title
            self.installed = installed
            self.missing = missing
            self.bytesOnDisk = bytesOnDisk
        }
    }

    /// Progress of installing components, as the HTTP API streams it.
    public struct InstallProgress: Sendable, Hashable, Codable {
        /// `step`, `progress`, `output`, `skipped` or `finished`.
        public var type: String
        public var text: String?
        public var fraction: Double?

        public init(type: String, text: String? = nil, fraction: Double? = nil) {
            self.type = type
            self.text = text
            self.fraction = fraction
        }
    }

    /// What an install did.
    public struct InstallReport: Sendable, Hashable, Codable {
        public var installed: [String]
        public var alreadyInstalled: [String]

        public init(installed: [String], alreadyInstalled: [String]) {
            self.installed = installed
            self.alreadyInstalled = alreadyInstalled
        }
    }

    /// One line of the provider check: what serves a capability and whether it works.
    public struct ProviderCheck: Sendable, Hashable, Codable {
        /// The probe: chat, stream, embeddings, transcription, translation, speech, images.
        public var capability: String
        /// The configured capability it belongs to: chat, embeddings, stt, tts, images.
        public var provider: String
        /// `local` or `remote`.
        public var using: String
        public var why: String
        /// `installed`, `missing` or `none`.
        public var localEngine: String
        public var baseUrl: String
        public var model: String
        /// Where the key comes from, or `none`; never the key.
        public var key: String
        public var state: String
        public var detail: String
        public var latencyMs: Int?

        public init(
            capability: String, provider: String, using: String, why: String, localEngine: String, baseUrl: String, model: String, key: String,
            state: String, detail: String, latencyMs: Int?
        ) {
            self.capability = capability
            self.provider = provider
            self.using = using
            self.why = why
            self.localEngine = localEngine
            self.baseUrl = baseUrl
            self.model = model
            self.key = key
            self.state = state
            self.detail = detail
            self.latencyMs = latencyMs
        }
    }

    /// Text heard in a recording.
    public struct Transcription: Sendable, Hashable, Codable {
        public var text: String
        public var language: String?
        /// Seconds.
        public var duration: Double?
        /// For a spoken question: where the server's time went before the answer began.
        public var timingsMs: VoiceTimings?

        public init(_ transcription: SibylCore.Transcription, timings: VoiceTimings? = nil) {
            text = transcription.text
            language = transcription.language
            duration = transcription.duration
            timingsMs = timings
        }
    }

    /// The server's share of a spoken question, in milliseconds: how long each stage before the
    /// answer took, then when the answer's first token and first spoken sentence were ready,
    /// counted from the recording's arrival (known once the answer is over: the `timings` event).
    public struct VoiceTimings: Sendable, Hashable, Codable {
        /// Reading the upload.
        public var receive: Int
        /// Decoding the recording and finding the speech in it.
        public var decode: Int
        /// Speech to text.
        public var transcribe: Int
        /// The answer's first token, after the recording arrived.
        public var firstToken: Int?
        /// The first sentence of the answer spoken (its audio ready to send), after the recording arrived.
        public var firstAudio: Int?

        public init(receive: Duration, decode: Duration, transcribe: Duration, firstToken: Duration? = nil, firstAudio: Duration? = nil) {
            self.receive = Self.ms(receive)
            self.decode = Self.ms(decode)
            self.transcribe = Self.ms(transcribe)
            self.firstToken = firstToken.map(Self.ms)
            self.firstAudio = firstAudio.map(Self.ms)
        }

        static func ms(_ duration: Duration) -> Int { Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000) }
    }

    /// One sentence of an answer, spoken as the answer is written (the `spoken` event).
    public struct SpokenSentence: Sendable, Hashable, Codable {
        /// 0 for the first sentence.
        public var index: Int
        public var text: String
        /// The audio, base64.
        public var audio: String
        public var mimeType: String

        public init(index: Int, text: String, audio: SibylCore.AudioFile) {
            self.index = index
            self.text = text
            self.audio = audio.data.base64EncodedString()
            mimeType = audio.format.mimeType
        }
    }

    /// An image Sibyl drew and keeps.
    public struct Image: Sendable, Hashable, Codable {
        public var id: String
        public var conversationId: String
        public var messageId: String
        public var mimeType: String
        public var filename: String?
        public var byteCount: Int
        public var prompt: String?
        public var createdAt: Date
        /// Where the bytes are served, over the HTTP API.
        public var url: String?

        public init(_ image: StoredImage, url: String? = nil) {
            id = image.id.wireString
            conversationId = image.conversationID.wireString
            messageId = image.messageID.wireString
            mimeType = image.mimeType
            filename = image.filename
            byteCount = image.byteCount
            prompt = image.prompt
            createdAt = image.createdAt
            self.url = url
        }
    }

    /// A collection of documents.
    public struct Collection: Sendable, Hashable, Codable {
        public var name: String
        public var embeddingModel: String?
        public var dimension: Int?
        public var createdAt: Date

        public init(_ collection: KnowledgeCollection) {
            name = collection.name
            embeddingModel = collection.embeddingModel
            dimension = collection.dimension
            createdAt = collection.createdAt
        }
    }

    /// An error, as the HTTP API returns it: `{"error": {"code", "message", "remedy"}}`.
    public struct ErrorBody: Sendable, Hashable, Codable {
        /// The error's details.
        public struct Detail: Sendable, Hashable, Codable {
            /// Machine-readable: `not_found`, `invalid_request`, `busy` …
            public var code: String
            /// What went wrong and what to do, in words.
            public var message: String
            /// What the user can do, when known.
            public var remedy: RemedyBody?
        }

        public var error: Detail

        public init(code: String, message: String, remedy: Remedy? = nil) {
            error = Detail(code: code, message: message, remedy: remedy.map(RemedyBody.init))
        }
    }

    /// What the user can do about an error: an action and what it applies to.
    public struct RemedyBody: Sendable, Hashable, Codable {
        /// `setKey`, `install`, `reindex`, `configure`, `listConversations`, `listDocuments`,
        /// `listMemory`, `listPersonas`, `listSettings`, `checkProviders`, `pairGlasses`, `retry`, `useExportedArchive`.
        public var action: String
        /// The key, component, collection or setting it applies to.
        public var target: String?

        public init(_ remedy: Remedy) {
            switch remedy {
            case .setKey(let name): (action, target) = ("setKey", name)
            case .install(let component): (action, target) = ("install", component)
            case .reindex(let collection): (action, target) = ("reindex", collection)
            case .configure(let setting): (action, target) = ("configure", setting)
            case .listConversations: (action, target) = ("listConversations", nil)
            case .listDocuments: (action, target) = ("listDocuments", nil)
            case .listMemory: (action, target) = ("listMemory", nil)
            case .listPersonas: (action, target) = ("listPersonas", nil)
            case .listSettings: (action, target) = ("listSettings", nil)
            case .checkProviders: (action, target) = ("checkProviders", nil)
            case .pairGlasses: (action, target) = ("pairGlasses", nil)
            case .retry: (action, target) = ("retry", nil)
            case .useExportedArchive: (action, target) = ("useExportedArchive", nil)
            }
        }
    }
}
