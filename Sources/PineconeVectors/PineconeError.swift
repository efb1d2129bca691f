import Foundation
import SibylCore

/// What went wrong talking to Pinecone, or why a request was not sent.
///
/// Messages never hold the API key: the connection masks it in everything it puts here.
public enum PineconeError: Error, Sendable, Equatable {
    /// Pinecone answered with an error status. `code` is the body's code (a gRPC number such as
    /// `3` from the data plane, a name such as `ALREADY_EXISTS` from the control plane).
    case api(status: Int, code: String?, message: String, operation: String)
    /// No connection could be made, or it broke before an answer came.
    case connection(String)
    /// Pinecone took too long to answer.
    case timeout(String)
    /// Pinecone's answer could not be read.
    case invalidResponse(String)
    /// The request breaks one of Pinecone's rules (checked before anything is sent).
    case invalidRequest(String)
    /// The caller cancelled the request.
    case cancelled

    /// The HTTP status of an API error.
    public var status: Int? {
        if case .api(let status, _, _, _) = self { return status }
        return nil
    }

    /// Whether trying again may help: rate limits, server errors and failed connections; never another 4xx.
    public var isRetryable: Bool {
        switch self {
        case .api(let status, _, _, _): status == 429 || status >= 500
        case .connection, .timeout: true
        case .invalidResponse, .invalidRequest, .cancelled: false
        }
    }
}

extension PineconeError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case .api(let status, let code, let message, let operation):
            let code = code.map { " [\($0)]" } ?? ""
            return Redaction.redact("Pinecone \(operation): HTTP \(status)\(code): \(message)")
        case .connection(let reason): return "Could not reach Pinecone: \(Redaction.redact(reason))"
        case .timeout(let what): return "Pinecone did not answer in time (\(what))."
        case .invalidResponse(let reason): return "Pinecone's answer could not be read: \(Redaction.redact(reason))"
        case .invalidRequest(let reason): return "Not sent to Pinecone: \(Redaction.redact(reason))"
        case .cancelled: return "Cancelled."
        }
    }

    public var recoverySuggestion: String? {
        switch self {
        case .api(let status, _, _, _):
            switch status {
            case 401, 403: "Check the Pinecone API key (PINECONE_API_KEY, or the stored key named 'pinecone')."
            case 404: "The index or namespace does not exist: check the pinecone.index setting."
            case 429: "Pinecone's rate limit was reached: wait a moment and try again."
            case 500...: "Pinecone had a problem; try again shortly."
            default: nil
            }
        case .connection: "Check the network and the pinecone.control_url setting."
        case .timeout: "Pinecone may be busy; try again."
        default: nil
        }
    }
}
