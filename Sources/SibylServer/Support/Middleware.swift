import Assistant
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import SibylApp
import SibylCore

/// One log line per request: method, path (never the query, which could carry anything),
/// status, time and client.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = SibylRequestContext
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        do {
            let response = try await next(request, context)
            log(request, status: response.status.code, started: started, context: context)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? APIError.from(error).status.code
            log(request, status: status, started: started, context: context)
            throw error
        }
    }

    private func log(_ request: Request, status: Int, started: ContinuousClock.Instant, context: Context) {
        let elapsed = ContinuousClock.now - started
        logger.info("\(request.method) \(request.uri.path) \(status) \(elapsed.milliseconds) ms", metadata: ["client": "\(context.clientKey)"])
    }
}

/// Turns every error into Sibyl's error body: `{"error": {"code", "message", "remedy"}}`.
struct APIErrorMiddleware: RouterMiddleware {
    typealias Context = SibylRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            return try APIError.logged(error, request: request, context: context).response(from: request, context: context)
        }
    }
}

/// Turns every error into OpenAI's error body: `{"error": {"message", "type", "param", "code"}}`,
/// so OpenAI's SDKs raise the exception that matches the status.
struct OpenAIErrorMiddleware: RouterMiddleware {
    typealias Context = SibylRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let apiError = APIError.logged(error, request: request, context: context)
            let type: String
            switch apiError.status.code {
            case 401: type = "authentication_error"
            case 404: type = "invalid_request_error"
            case 429: type = "rate_limit_error"
            case 400..<500: type = "invalid_request_error"
            default: type = "server_error"
            }
            let body = OpenAIErrorBody(error: .init(message: apiError.message, type: type, param: apiError.parameter, code: apiError.code))
            var response = try JSONBody(body, status: apiError.status).response(status: apiError.status)
            response.headers.append(contentsOf: apiError.headers)
            return response
        }
    }
}

/// OpenAI's error shape.
struct OpenAIErrorBody: Codable, Sendable {
    struct Detail: Codable, Sendable {
        var message: String
        var type: String
        var param: String?
        var code: String?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(message, forKey: .message)
            try container.encode(type, forKey: .type)
            // OpenAI always sends both, null when there is nothing to say.
            try container.encode(param, forKey: .param)
            try container.encode(code, forKey: .code)
        }
    }

    var error: Detail
}

extension APIError {
    /// The API's answer for an error; a server-side failure (5xx) is logged with its details,
    /// which the client does not get.
    static func logged(_ error: any Error, request: Request, context: SibylRequestContext) -> APIError {
        let apiError = from(error)
        if apiError.status.code >= 500 {
            context.logger.error("\(request.method) \(request.uri.path) failed: \(Redaction.redact(String(describing: error)))")
        }
        return apiError
    }
}
