import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import SibylCore

extension RetryPolicy {
    /// Pinecone's default: rate limits (429), server errors (5xx) and failed connections are
    /// retried up to three times; other 4xx never are (`PineconeError.isRetryable`), because the
    /// same request would fail the same way.
    public static let pinecone = RetryPolicy(maxRetries: 3)
}

/// What the data-plane and control-plane clients share: where to send, the key, the API version,
/// retries, and turning error answers into `PineconeError`.
struct PineconeConnection: Sendable {
    /// The API version both specs describe; sent with every request.
    static let apiVersion = "2025-10"

    /// Scheme and host (and port), without a trailing slash.
    let baseURL: String
    let apiKey: String
    let transport: any PineconeTransport
    let retryPolicy: RetryPolicy
    let timeout: Duration
    let logger: Logger

    init(baseURL: String, apiKey: String, transport: any PineconeTransport, retryPolicy: RetryPolicy, timeout: Duration, logger: Logger) {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.apiKey = apiKey
        self.transport = transport
        self.retryPolicy = retryPolicy
        self.timeout = timeout
        self.logger = logger
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        // Sorted keys make the request bodies comparable byte for byte (the golden tests).
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// Sends a request, retrying by the policy, and returns the successful answer.
    func send(_ method: String, _ path: String, query: [(String, String)] = [], body: Data? = nil, operation: String) async throws -> PineconeResponse {
        var headers = [
            "Api-Key": apiKey,
            "X-Pinecone-Api-Version": Self.apiVersion,
            "Accept": "application/json",
            "User-Agent": "Sibyl/0.1 (Swift)",
        ]
        if body != nil { headers["Content-Type"] = "application/json" }
        let request = PineconeRequest(method: method, url: baseURL + path + Self.queryString(query), headers: headers, body: body)
        var attempt = 0
        while true {
            try Task.checkCancellation()
            let failure: PineconeError
            var retryAfter: String?
            do {
                let response = try await transport.send(request, timeout: timeout)
                if (200..<300).contains(response.status) { return response }
                failure = apiError(response, operation: operation)
                retryAfter = response.headers["retry-after"]
            } catch {
                failure = map(error)
            }
            guard failure.isRetryable, attempt < retryPolicy.maxRetries, !Task.isCancelled else {
                logger.debug("pinecone \(operation) failed: \(failure.localizedDescription)")
                throw failure
            }
            let delay = retryPolicy.delay(beforeRetry: attempt, retryAfter: retryAfter)
            logger.info("pinecone \(operation) failed (\(failure.localizedDescription)); retrying in \(delay) (attempt \(attempt + 2) of \(retryPolicy.maxRetries + 1))")
            do {
                try await Task.sleep(for: delay)
            } catch {
                throw PineconeError.cancelled
            }
            attempt += 1
        }
    }

    /// Sends JSON (or nothing) and decodes a JSON answer.
    func json<Response: Decodable>(
        _ method: String, _ path: String, query: [(String, String)] = [], body: (some Encodable)? = nil as Empty?, as type: Response.Type, operation: String
    ) async throws -> Response {
        let data = try body.map { try Self.encoder.encode($0) }
        let response = try await send(method, path, query: query, body: data, operation: operation)
        return try decode(Response.self, from: response.body, operation: operation)
    }

    func decode<Response: Decodable>(_ type: Response.Type, from data: Data, operation: String) throws -> Response {
        do {
            return try JSONDecoder().decode(Response.self, from: data)
        } catch {
            throw PineconeError.invalidResponse(redact("\(operation): \(error); body starts: \(String(decoding: data.prefix(200), as: UTF8.self))"))
        }
    }

    /// An error answer as a typed error: the data plane sends `rpcStatus` (`{code, message, details}`),
    /// the control plane `{error: {code, message}, status}`; anything else is quoted.
    func apiError(_ response: PineconeResponse, operation: String) -> PineconeError {
        var code: String?
        var message: String?
        if let status = try? JSONDecoder().decode(RPCStatus.self, from: response.body), status.message != nil || status.code != nil {
            code = status.code.map(String.init)
            message = status.message
        } else if let envelope = try? JSONDecoder().decode(ControlPlaneError.self, from: response.body) {
            code = envelope.error.code
            message = envelope.error.message
        }
        if message == nil {
            let text = String(decoding: response.body.prefix(500), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            message = text.isEmpty ? HTTPResponseStatus(statusCode: response.status).reasonPhrase : text
        }
        return .api(status: response.status, code: code, message: redact(message ?? ""), operation: operation)
    }

    func map(_ error: any Error) -> PineconeError {
        switch error {
        case let error as PineconeError: return error
        case is CancellationError: return .cancelled
        case let error as HTTPClientError:
            switch error {
            case .connectTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout: return .timeout("connecting")
            case .readTimeout, .deadlineExceeded: return .timeout("waiting for the answer")
            case .cancelled, .requestStreamCancelled: return .cancelled
            case .invalidURL, .emptyHost, .emptyScheme: return .invalidRequest("the URL \(baseURL) is not valid")
            default: return .connection(redact(String(describing: error)))
            }
        case let error as IOError:
            return .connection(String(cString: strerror(error.errnoCode)).lowercased() + " (\(baseURL))")
        case let error as NIOConnectionError:
            if let first = error.connectionErrors.first?.error { return map(first) }
            return .connection("could not connect to \(error.host):\(error.port)")
        default:
            return .connection(redact(String(describing: error)))
        }
    }

    /// The text with the API key masked.
    func redact(_ text: String) -> String {
        Redaction.redact(text, secrets: [apiKey])
    }

    /// `?a=1&b=2`, percent-encoded; repeated names for arrays (the spec's `explode: true`).
    static func queryString(_ items: [(String, String)]) -> String {
        guard !items.isEmpty else { return "" }
        func escape(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text }
        return "?" + items.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }

    /// RFC 3986's unreserved characters (ASCII only: everything else is percent-encoded).
    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// A path segment, percent-encoded.
    static func segment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }
}

/// No body.
struct Empty: Codable, Sendable {}

/// The data plane's error body.
struct RPCStatus: Decodable {
    var code: Int?
    var message: String?
}

/// The control plane's error body.
struct ControlPlaneError: Decodable {
    struct Detail: Decodable {
        var code: String?
        var message: String?
    }
    var error: Detail
    var status: Int?
}
