import Foundation
import SibylCore

/// The shapes of OpenAI's API that Sibyl's compatible endpoints read and write (snake_case, as
/// OpenAI's spec names them).
enum OpenAIWire {
    /// `POST /v1/chat/completions`.
    struct ChatRequest: Decodable, Sendable {
        var model: String
        var messages: [Message]
        var stream: Bool?
        var streamOptions: StreamOptions?
        var temperature: Double?
        var maxTokens: Int?
        var maxCompletionTokens: Int?
        var topP: Double?
        var presencePenalty: Double?
        var frequencyPenalty: Double?
        var n: Int?
        var tools: [Ignored]?
        var user: String?

        enum CodingKeys: String, CodingKey {
            case model, messages, stream, temperature, n, tools, user
            case streamOptions = "stream_options"
            case maxTokens = "max_tokens"
            case maxCompletionTokens = "max_completion_tokens"
            case topP = "top_p"
            case presencePenalty = "presence_penalty"
            case frequencyPenalty = "frequency_penalty"
        }
    }

    struct StreamOptions: Decodable, Sendable {
        var includeUsage: Bool?
        enum CodingKeys: String, CodingKey { case includeUsage = "include_usage" }
    }

    /// Anything, unread.
    struct Ignored: Decodable, Sendable {
        init(from decoder: any Decoder) throws {}
    }

    /// A chat message as clients send it: text, or parts (text and images).
    struct Message: Decodable, Sendable {
        var role: String
        var content: Content?

        enum Content: Decodable, Sendable {
            case text(String)
            case parts([Part])

            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let text = try? container.decode(String.self) {
                    self = .text(text)
                } else {
                    self = .parts(try container.decode([Part].self))
                }
            }
        }

        struct Part: Decodable, Sendable {
            var type: String
            var text: String?
            var imageURL: ImageURL?

            enum CodingKeys: String, CodingKey {
                case type, text
                case imageURL = "image_url"
            }
        }

        struct ImageURL: Decodable, Sendable {
            var url: String
            var detail: String?
        }
    }

    /// A non-streamed chat completion.
    struct ChatCompletion: Encodable, Sendable {
        var id: String
        var object = "chat.completion"
        var created: Int
        var model: String
        var choices: [Choice]
        var usage: Usage
        var systemFingerprint: String?

        struct Choice: Encodable, Sendable {
            var index: Int
            var message: AnswerMessage
            var finishReason: String
            var logprobs: String?

            enum CodingKeys: String, CodingKey {
                case index, message, logprobs
                case finishReason = "finish_reason"
            }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(index, forKey: .index)
                try container.encode(message, forKey: .message)
                try container.encode(finishReason, forKey: .finishReason)
                try container.encodeNil(forKey: .logprobs)
            }
        }

        struct AnswerMessage: Encodable, Sendable {
            var role = "assistant"
            var content: String

            enum CodingKeys: String, CodingKey { case role, content, refusal }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(role, forKey: .role)
                try container.encode(content, forKey: .content)
                try container.encodeNil(forKey: .refusal)
            }
        }

        enum CodingKeys: String, CodingKey {
            case id, object, created, model, choices, usage
            case systemFingerprint = "system_fingerprint"
        }
    }

    /// One chunk of a streamed chat completion.
    struct ChatChunk: Encodable, Sendable {
        var id: String
        var object = "chat.completion.chunk"
        var created: Int
        var model: String
        var choices: [Choice]
        /// Present (null until the last chunk) when the client asked for usage.
        var usage: Usage??

        struct Choice: Encodable, Sendable {
            var index = 0
            var delta: Delta
            var finishReason: String?

            enum CodingKeys: String, CodingKey {
                case index, delta
                case finishReason = "finish_reason"
            }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(index, forKey: .index)
                try container.encode(delta, forKey: .delta)
                try container.encode(finishReason, forKey: .finishReason)
            }
        }

        struct Delta: Encodable, Sendable {
            var role: String?
            var content: String?
        }

        enum CodingKeys: String, CodingKey { case id, object, created, model, choices, usage }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(object, forKey: .object)
            try container.encode(created, forKey: .created)
            try container.encode(model, forKey: .model)
            try container.encode(choices, forKey: .choices)
            switch usage {
            case .none: break
            case .some(.none): try container.encodeNil(forKey: .usage)
            case .some(.some(let usage)): try container.encode(usage, forKey: .usage)
            }
        }
    }

    struct Usage: Encodable, Sendable {
        var promptTokens: Int
        var completionTokens: Int
        var totalTokens: Int

        init(_ usage: TokenUsage?) {
            promptTokens = usage?.promptTokens ?? 0
            completionTokens = usage?.completionTokens ?? 0
            totalTokens = promptTokens + completionTokens
        }

        enum CodingKeys: String, CodingKey {
            case promptTokens = "prompt_tokens"
            case completionTokens = "completion_tokens"
            case totalTokens = "total_tokens"
        }
    }

    /// `GET /v1/models`.
    struct ModelList: Encodable, Sendable {
        var object = "list"
        var data: [Model]
    }

    struct Model: Encodable, Sendable {
        var id: String
        var object = "model"
        var created: Int
        var ownedBy = "sibyl"

        enum CodingKeys: String, CodingKey {
            case id, object, created
            case ownedBy = "owned_by"
        }
    }

    /// `POST /v1/embeddings`.
    struct EmbeddingRequest: Decodable, Sendable {
        var model: String
        var input: EmbeddingInput
        var encodingFormat: String?
        var dimensions: Int?
        var user: String?

        enum CodingKeys: String, CodingKey {
            case model, input, dimensions, user
            case encodingFormat = "encoding_format"
        }
    }

    enum EmbeddingInput: Decodable, Sendable {
        case texts([String])
        case tokens

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) {
                self = .texts([text])
            } else if let texts = try? container.decode([String].self) {
                self = .texts(texts)
            } else {
                self = .tokens
            }
        }
    }

    struct EmbeddingList: Encodable, Sendable {
        var object = "list"
        var data: [Embedding]
        var model: String
        var usage: EmbeddingUsage
    }

    struct Embedding: Encodable, Sendable {
        var object = "embedding"
        var index: Int
        var embedding: EmbeddingValue
    }

    enum EmbeddingValue: Encodable, Sendable {
        case floats([Float])
        case base64(String)

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .floats(let values): try container.encode(values)
            case .base64(let text): try container.encode(text)
            }
        }
    }

    struct EmbeddingUsage: Encodable, Sendable {
        var promptTokens: Int
        var totalTokens: Int

        enum CodingKeys: String, CodingKey {
            case promptTokens = "prompt_tokens"
            case totalTokens = "total_tokens"
        }
    }

    /// `POST /v1/audio/speech`.
    struct SpeechRequest: Decodable, Sendable {
        var model: String
        var input: String
        var voice: String
        var responseFormat: String?
        var speed: Double?
        var instructions: String?

        enum CodingKeys: String, CodingKey {
            case model, input, voice, speed, instructions
            case responseFormat = "response_format"
        }
    }

    struct Transcription: Encodable, Sendable {
        var text: String
    }

    struct VerboseTranscription: Encodable, Sendable {
        var task = "transcribe"
        var language: String
        var duration: Double
        var text: String
    }
}
