import Foundation
import SibylCore

// The JSON shapes of the OpenAI REST API that this client sends and reads.

/// A request to `/chat/completions`; with a `prompt` instead of `messages`, to the legacy
/// `/completions` (instruct and base models), which takes the same sampling.
struct ChatCompletionBody: Encodable {
    struct StreamOptions: Encodable {
        var includeUsage: Bool
        enum CodingKeys: String, CodingKey { case includeUsage = "include_usage" }
    }

    var model: String
    var messages: [WireMessage]?
    var prompt: String?
    var temperature: Double?
    var maxTokens: Int?
    var maxCompletionTokens: Int?
    var topP: Double?
    var presencePenalty: Double?
    var frequencyPenalty: Double?
    var stop: [String]?
    var user: String?
    var stream: Bool?
    var streamOptions: StreamOptions?
    var tools: [WireTool]?

    enum CodingKeys: String, CodingKey {
        case model, messages, prompt, temperature, stop, user, stream, tools
        case maxTokens = "max_tokens"
        case maxCompletionTokens = "max_completion_tokens"
        case topP = "top_p"
        case presencePenalty = "presence_penalty"
        case frequencyPenalty = "frequency_penalty"
        case streamOptions = "stream_options"
    }
}

/// A message on the wire: plain string content, or an array of parts when images are attached.
struct WireMessage: Encodable {
    var message: ChatMessage

    enum CodingKeys: String, CodingKey {
        case role, content
        case toolCalls = "tool_calls"
        case toolCallID = "tool_call_id"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if let id = message.toolCallID {
            try container.encode("tool", forKey: .role)
            try container.encode(id, forKey: .toolCallID)
            try container.encode(message.text, forKey: .content)
            return
        }
        try container.encode(message.role.rawValue, forKey: .role)
        if !message.toolCalls.isEmpty {
            try container.encode(message.toolCalls.map(WireToolCall.init(call:)), forKey: .toolCalls)
            // A message that only calls tools has no content.
            if message.text.isEmpty { try container.encodeNil(forKey: .content) } else { try container.encode(message.text, forKey: .content) }
            return
        }
        if message.hasImages {
            var parts = container.nestedUnkeyedContainer(forKey: .content)
            for part in message.parts {
                switch part {
                case .text(let text):
                    try parts.encode(TextPart(text: text))
                case .image(let image):
                    try parts.encode(ImagePart(imageURL: .init(url: image.urlString, detail: image.detail?.rawValue)))
                }
            }
        } else {
            try container.encode(message.text, forKey: .content)
        }
    }

    private struct TextPart: Encodable {
        var type = "text"
        var text: String
    }

    private struct ImagePart: Encodable {
        struct URLBox: Encodable {
            var url: String
            var detail: String?
        }
        var type = "image_url"
        var imageURL: URLBox
        enum CodingKeys: String, CodingKey {
            case type
            case imageURL = "image_url"
        }
    }
}

/// A tool offered to the model: `{"type": "function", "function": {name, description, parameters}}`.
struct WireTool: Encodable {
    struct Function: Encodable {
        var name: String
        var description: String
        var parameters: JSONValue
    }
    var type = "function"
    var function: Function

    init(tool: ChatTool) {
        function = Function(name: tool.name, description: tool.description, parameters: tool.parameters)
    }
}

/// A call to a tool, as an answer carries it and as it is sent back with the conversation.
struct WireToolCall: Codable {
    struct Function: Codable {
        var name: String?
        var arguments: String?
    }
    /// Only in a stream's pieces: which call a piece belongs to.
    var index: Int?
    var id: String?
    var type: String?
    var function: Function?

    init(call: ChatToolCall) {
        id = call.id
        type = "function"
        function = Function(name: call.name, arguments: call.arguments)
    }
}

struct WireUsage: Decodable {
    var promptTokens: Int?
    var completionTokens: Int?

    enum CodingKeys: String, CodingKey {
        case promptTokens = "prompt_tokens"
        case completionTokens = "completion_tokens"
    }

    var tokenUsage: TokenUsage {
        TokenUsage(promptTokens: promptTokens ?? 0, completionTokens: completionTokens ?? 0)
    }
}

struct ChatCompletionResponse: Decodable {
    struct Choice: Decodable {
        struct Message: Decodable {
            var content: String?
            var toolCalls: [WireToolCall]?
            enum CodingKeys: String, CodingKey {
                case content
                case toolCalls = "tool_calls"
            }
        }
        var message: Message?
        /// A legacy `/completions` answer's text.
        var text: String?
        var finishReason: String?
        enum CodingKeys: String, CodingKey {
            case message, text
            case finishReason = "finish_reason"
        }
    }
    var model: String?
    var choices: [Choice]
    var usage: WireUsage?
}

struct ChatCompletionChunk: Decodable {
    struct Choice: Decodable {
        struct Delta: Decodable {
            var content: String?
            var toolCalls: [WireToolCall]?
            enum CodingKeys: String, CodingKey {
                case content
                case toolCalls = "tool_calls"
            }
        }
        var delta: Delta?
        /// A legacy `/completions` chunk's text.
        var text: String?
        var finishReason: String?
        enum CodingKeys: String, CodingKey {
            case delta, text
            case finishReason = "finish_reason"
        }
    }
    var model: String?
    var choices: [Choice]?
    var usage: WireUsage?
    var error: APIErrorDetail?
}

struct ErrorEnvelope: Decodable {
    var error: APIErrorDetail
}

/// Some servers (older llama.cpp, proxies) send `{"error": "text"}` or `{"message": "text"}`.
struct LooseErrorEnvelope: Decodable {
    var error: String?
    var message: String?
    var detail: String?
}

struct EmbeddingsBody: Encodable {
    var model: String
    var input: [String]
    var dimensions: Int?
    var encodingFormat: String?
    enum CodingKeys: String, CodingKey {
        case model, input, dimensions
        case encodingFormat = "encoding_format"
    }
}

struct EmbeddingsResponse: Decodable {
    struct Item: Decodable {
        var index: Int
        var embedding: [Float]
    }
    var data: [Item]
    var model: String?
    var usage: WireUsage?
}

struct SpeechBody: Encodable {
    var model: String
    var input: String
    var voice: String
    var responseFormat: String
    var speed: Double?
    enum CodingKeys: String, CodingKey {
        case model, input, voice, speed
        case responseFormat = "response_format"
    }
}

struct TranscriptionResponse: Decodable {
    var text: String
    var language: String?
    var duration: Double?
}

struct ImagesBody: Encodable {
    var model: String
    var prompt: String
    var n: Int?
    var size: String?
    var quality: String?
    var responseFormat: String?
    enum CodingKeys: String, CodingKey {
        case model, prompt, n, size, quality
        case responseFormat = "response_format"
    }
}

struct ImagesResponse: Decodable {
    struct Item: Decodable {
        var url: String?
        var b64JSON: String?
        var revisedPrompt: String?
        enum CodingKeys: String, CodingKey {
            case url
            case b64JSON = "b64_json"
            case revisedPrompt = "revised_prompt"
        }
    }
    var data: [Item]
}

struct ModelsResponse: Decodable {
    var data: [ModelInfo]
}

/// A model a server offers.
public struct ModelInfo: Sendable, Hashable, Decodable {
    public var id: String
    public var ownedBy: String?
    public var created: Int?

    enum CodingKeys: String, CodingKey {
        case id, created
        case ownedBy = "owned_by"
    }
}
