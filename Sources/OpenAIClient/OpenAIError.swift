import Foundation
import SibylCore

/// An error body as OpenAI-compatible servers send it: `{"error": {"message", "type", "code", "param"}}`.
public struct APIErrorDetail: Sendable, Hashable, Codable {
    public var message: String
    public var type: String?
    public var code: String?
    public var param: String?

    public init(message: String, type: String? = nil, code: String? = nil, param: String? = nil) {
        self.message = message
        self.type = type
        self.code = code
        self.param = param
    }

    enum CodingKeys: String, CodingKey { case message, type, code, param }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        message = (try? container.decode(String.self, forKey: .message)) ?? "(no message)"
        type = try? container.decode(String.self, forKey: .type)
        // Servers disagree on the type of `code`: OpenAI sends strings, llama.cpp sends numbers.
        if let text = try? container.decode(String.self, forKey: .code) {
            code = text
        } else if let number = try? container.decode(Int.self, forKey: .code) {
            code = String(number)
        } else {
            code = nil
        }
        param = try? container.decode(String.self, forKey: .param)
    }
}

/// What went wrong talking to an OpenAI-compatible server.
public enum OpenAIError: Error, Sendable {
    /// The server answered with an error status (or sent an error inside a stream, then `status` is nil).
    case api(status: Int?, detail: APIErrorDetail, requestID: String?)
    /// No connection could be made, or it broke before an answer began.
    case connection(String)
    /// The connection broke while a streamed answer was arriving; `partial` is what arrived.
    case streamInterrupted(partial: String, reason: String)
    /// The server took too long: to connect, or between bytes.
    case timeout(String)
    /// The server's answer could not be understood.
    case invalidResponse(String)
    /// The request could not be built (bad URL, unreadable input).
    case invalidRequest(String)
    /// The caller cancelled the request.
    case cancelled

    /// The HTTP status of an API error.
    public var status: Int? {
        if case .api(let status, _, _) = self { return status }
        return nil
    }

    /// The server's error code (`invalid_api_key`, `insufficient_quota`, `model_not_found` …).
    public var code: String? {
        if case .api(_, let detail, _) = self { return detail.code }
        return nil
    }

    /// Whether the error is worth retrying by the official SDKs' policy.
    var isRetryable: Bool {
        switch self {
        case .api(let status, let detail, _):
            guard let status else { return false }
            if detail.code == "insufficient_quota" || detail.type == "insufficient_quota" { return false }
            return status == 408 || status == 409 || status == 429 || status >= 500
        case .connection, .timeout:
            return true
        case .streamInterrupted, .invalidResponse, .invalidRequest, .cancelled:
            return false
        }
    }
}

extension OpenAIError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case .api(let status, let detail, _):
            let prefix = status.map { "HTTP \($0)" } ?? "error in stream"
            let code = detail.code.map { " [\($0)]" } ?? ""
            return Redaction.redact("\(prefix)\(code): \(detail.message)")
        case .connection(let reason): return "Could not reach the server: \(Redaction.redact(reason))"
        case .streamInterrupted(_, let reason): return "The answer was cut off: \(Redaction.redact(reason))"
        case .timeout(let what): return "The server did not answer in time (\(what))."
        case .invalidResponse(let reason): return "The server's answer could not be read: \(Redaction.redact(reason))"
        case .invalidRequest(let reason): return "Invalid request: \(Redaction.redact(reason))"
        case .cancelled: return "Cancelled."
        }
    }

    public var recoverySuggestion: String? {
        switch self {
        case .api(let status, let detail, _):
            if detail.code == "insufficient_quota" { return "Your account is out of credit: check your plan and billing with the provider." }
            switch status {
            case 401: return "Check the API key (the stored key, or OPENAI_API_KEY)."
            case 403: return "This key may not use this model or endpoint; check its permissions."
            case 404: return "The model or endpoint does not exist on this server; check which models it offers."
            case 429: return "Rate limit reached: wait a moment and try again."
            case let status? where status >= 500: return "The server had a problem; try again shortly."
            default: return nil
            }
        case .connection:
            return "Check the base URL setting and that the server is running."
        case .timeout:
            return "The server may be overloaded or the model still loading; try again, or raise the timeout setting."
        case .streamInterrupted:
            return "The partial answer was kept; ask again to replace it."
        default:
            return nil
        }
    }
}

extension OpenAIError: RemedyProviding {
    /// What the user can do: fix the key, see what the server offers, check the settings, ask again.
    public var remedy: Remedy? {
        switch self {
        case .api(let status, let detail, _):
            if detail.code == "insufficient_quota" { return nil }
            switch status {
            case 401: return .setKey(name: "openai")
            case 404: return .checkProviders
            default: return nil
            }
        case .connection: return .configure(setting: "base_url")
        case .timeout: return .configure(setting: "timeout")
        case .streamInterrupted: return .retry
        default: return nil
        }
    }
}

extension OpenAIError: AnswerStreamFailure {
    public var partialAnswer: String? {
        if case .streamInterrupted(let partial, _) = self { return partial }
        return nil
    }

    public var isCancellation: Bool {
        if case .cancelled = self { return true }
        return false
    }
}
