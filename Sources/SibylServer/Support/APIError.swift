import Accounts
import Assistant
import Foundation
public import HTTPTypes
public import Hummingbird
import Knowledge
import LocalEngines
import OpenAIClient
import PineconeVectors
import SibylApp
import SibylConfig
public import SibylCore
import Storage

/// An error the HTTP API answers with: a status, a machine-readable code, and words for people.
public struct APIError: Error, Sendable {
    public var status: HTTPResponse.Status
    public var code: String
    public var message: String
    public var remedy: Remedy?
    /// Extra headers (such as `Retry-After`).
    public var headers: HTTPFields
    /// The request member at fault, when one is.
    public var parameter: String?

    public init(_ status: HTTPResponse.Status, code: String, _ message: String, remedy: Remedy? = nil, headers: HTTPFields = [:], parameter: String? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.remedy = remedy
        self.headers = headers
        self.parameter = parameter
    }

    static func badRequest(_ message: String, code: String = "invalid_request") -> APIError {
        APIError(.badRequest, code: code, message)
    }

    static func notFound(_ message: String) -> APIError {
        APIError(.notFound, code: "not_found", message)
    }

    /// The API's answer for any error: domain errors keep their words and get a status that fits;
    /// anything unexpected is a 500 whose details go to the log, not to the client.
    static func from(_ error: any Error) -> APIError {
        if let error = error as? APIError { return error }
        let remedy = (error as? any RemedyProviding)?.remedy
        let message = Redaction.redact(error.localizedDescription)
        func make(_ status: HTTPResponse.Status, _ code: String) -> APIError { APIError(status, code: code, message, remedy: remedy) }
        switch error {
        case let error as AssistantError:
            switch error {
            case .conversationNotFound, .messageNotFound, .attachmentNotFound, .turnNotFound, .unknownPersona, .unknownKey, .memoryFactNotFound: return make(.notFound, "not_found")
            case .busy: return make(.conflict, "busy")
            case .nothingToRetry: return make(.conflict, "nothing_to_retry")
            case .builtInPersona: return make(.conflict, "built_in")
            case .personaExists: return make(.conflict, "conflict")
            case .ambiguousDocument, .ambiguousMemoryFact: return make(.conflict, "ambiguous")
            case .messageTooLong: return make(.badRequest, "message_too_long")
            case .unknownLocalModel: return make(.badRequest, "model_not_found")
            case .missingAPIKey, .noModel: return make(.serviceUnavailable, "not_configured")
            case .noSpeech: return make(.unprocessableContent, "no_speech")
            case .emptyQuestion, .emptyQuery, .emptyPrompt, .emptyAudio, .emptyKey, .emptyPersonaPrompt, .invalidSampling, .invalidAnswerLanguage,
                 .invalidImageCount, .invalidImageSize, .noDocumentsFound, .emptyMemoryFact, .memoryFactTooLong:
                return make(.badRequest, "invalid_request")
            }
        case let error as AccountError:
            switch error {
            case .signInFailed: return AuthMiddleware.unauthorized(message)
            case .throttled(let seconds):
                return APIError(.tooManyRequests, code: "throttled", message, headers: [.retryAfter: String(seconds)])
            case .nameTaken: return make(.conflict, "conflict")
            case .lastAdministrator: return make(.conflict, "last_admin")
            case .invalidName: return make(.badRequest, "invalid_name")
            case .weakPassword: return make(.badRequest, "weak_password")
            case .noSuchAccount, .noSuchToken: return make(.notFound, "not_found")
            case .cannotOpen, .database: return internalError(error)
            }
        case let error as StorageError:
            switch error {
            case .notFound, .messageNotFound: return make(.notFound, "not_found")
            case .ambiguous: return make(.conflict, "ambiguous")
            case .invalidIDPrefix, .invalidPersonaName: return make(.badRequest, "invalid_request")
            case .invalidArchive, .unsupportedArchiveFormat, .unsupportedArchiveVersion: return make(.badRequest, "invalid_archive")
            case .conversationExists, .messageExists: return make(.conflict, "conflict")
            default: return internalError(error)
            }
        case let error as KnowledgeError:
            switch error {
            case .unknownCollection, .unknownDocument: return make(.notFound, "not_found")
            case .embeddingMismatch: return make(.conflict, "reindex_needed")
            case .collectionExists: return make(.conflict, "conflict")
            case .invalidCollectionName: return make(.badRequest, "invalid_request")
            }
        case let error as ConfigError:
            switch error {
            case .unknownKey: return make(.notFound, "not_found")
            case .invalidValue, .invalidSecretName, .reservedSecretName, .invalidDatabaseKey: return make(.badRequest, "invalid_request")
            case .unreadableFile: return internalError(error)
            // This instance cannot open the shared database's API keys: the message says what its operator must do.
            case .databaseKeyMissing, .databaseKeyMismatch, .sealedKeyUnreadable: return make(.serviceUnavailable, "database_key_needed")
            }
        case let error as LocalEngineError:
            if case .notInstalled = error { return make(.serviceUnavailable, "engine_not_installed") }
            return make(.serviceUnavailable, "engine_failed")
        case let error as InstallError:
            if case .unknownComponent = error { return make(.badRequest, "invalid_request") }
            return make(.badGateway, "install_failed")
        case let error as AudioConversionError:
            if case .ffmpegMissing = error { return make(.serviceUnavailable, "engine_not_installed") }
            return make(.unsupportedMediaType, "unsupported_audio")
        case let error as SpeechError:
            if case .engineFailed = error { return make(.serviceUnavailable, "engine_failed") }
            return make(.badRequest, "invalid_request")
        case let error as OpenAIError:
            if error.status == 429 { return make(.tooManyRequests, "provider_rate_limited") }
            if error.status == 401 || error.status == 403 { return make(.badGateway, "provider_unauthorized") }
            return make(.badGateway, "provider_error")
        case let error as PineconeError:
            switch error {
            case .invalidRequest: return make(.badRequest, "invalid_request")
            case .api(status: 409, _, _, _): return make(.conflict, "conflict")
            case .api(status: 401, _, _, _), .api(status: 403, _, _, _): return make(.badGateway, "pinecone_unauthorized")
            default: return make(.badGateway, "pinecone_error")
            }
        case let error as HTTPError:
            return APIError(error.status, code: code(for: error.status), error.body ?? error.status.reasonPhrase, headers: error.headers)
        case let error as DecodingError:
            return APIError(.badRequest, code: "invalid_json", "The request body is not what this route takes: \(describe(error))")
        default:
            return internalError(error)
        }
    }

    private static func internalError(_ error: any Error) -> APIError {
        APIError(.internalServerError, code: "internal_error", "Something went wrong on the server: \(Redaction.redact(error.localizedDescription))")
    }

    /// A code for an HTTP status without a more precise one.
    static func code(for status: HTTPResponse.Status) -> String {
        switch status.code {
        case 400: "invalid_request"
        case 401: "unauthorized"
        case 404: "not_found"
        case 405: "method_not_allowed"
        case 409: "conflict"
        case 413: "too_large"
        case 415: "unsupported_media_type"
        case 429: "too_many_requests"
        case 500...: "internal_error"
        default: "error"
        }
    }

    /// A decoding error in words: which member, and what was wrong.
    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return keys.isEmpty ? "the body" : keys.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = path(context)
            return "'\(key.stringValue)' is missing\(parent == "the body" ? "" : " in \(parent)")."
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "\(path(context)) has the wrong type (\(context.debugDescription))."
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "it is not valid JSON." : "\(path(context)): \(context.debugDescription)"
        @unknown default:
            return String(describing: error)
        }
    }
}

extension APIError: HTTPResponseError {
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try JSONBody(Wire.ErrorBody(code: code, message: message, remedy: remedy)).response(status: status)
        response.headers.append(contentsOf: headers)
        return response
    }
}
