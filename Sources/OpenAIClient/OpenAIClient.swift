import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import SibylCore

/// A client for the OpenAI API and any server that speaks it (llama.cpp, Ollama, vLLM …).
public struct OpenAIClient: Sendable {
    public let configuration: OpenAIConfiguration
    let http: HTTPClient
    let logger: Logger

    /// The largest response body read into memory (audio and images included).
    static let maxBodyBytes = 256 * 1024 * 1024

    public init(configuration: OpenAIConfiguration, logger: Logger = Logger(label: "sibyl.openai")) {
        self.configuration = configuration
        self.http = HTTPClientPool.client(connectTimeout: configuration.connectTimeout, readTimeout: configuration.readTimeout)
        self.logger = logger
    }

    // MARK: Requests

    /// A request body and how to label it.
    struct Body {
        var data: Data
        var contentType: String
    }

    static func json(_ value: some Encodable) throws -> Body {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Body(data: try encoder.encode(value), contentType: "application/json")
    }

    /// Sends a request, retrying by the policy, and returns a successful response whose body is not yet read.
    ///
    /// Error statuses are turned into `OpenAIError.api` with the server's message, also for
    /// streaming requests, whose errors arrive as ordinary JSON bodies.
    func send(_ method: HTTPMethod, _ path: String, body: Body? = nil, accept: String = "application/json") async throws -> HTTPClientResponse {
        // With several servers, each attempt goes round them: the next healthy one first, and on
        // to the others at once when one is down (`EndpointPool`).
        let pool = configuration.endpoints.count > 1 ? EndpointPool.shared(for: configuration.endpoints, cooldown: configuration.failoverCooldown) : nil
        var attempt = 0
        var retriedClosedConnection = false
        while true {
            try Task.checkCancellation()
            let candidates = pool?.order() ?? [configuration.baseURL]
            var failure = Failure(error: .connection("no server to ask"))
            servers: for (index, endpoint) in candidates.enumerated() {
                switch await sendOnce(method, endpoint, path, body: body, accept: accept) {
                case .success(let response):
                    pool?.succeeded(endpoint)
                    return response
                case .failure(let failed):
                    failure = failed
                    guard let pool, failed.error.meansEndpointDown, !Task.isCancelled else { break servers }
                    pool.failed(endpoint, http: http, logger: logger)
                    if index + 1 < candidates.count {
                        logger.info("\(method.rawValue) \(path) at \(endpoint) failed (\(failed.localizedDescription)); trying \(candidates[index + 1])")
                    }
                }
            }
            // A kept-alive connection the server closed as it went idle (llama-server and uvicorn
            // keep one for 5 s) fails a request sent just as it closes; the server never saw it.
            // The first such failure is tried again at once on a new connection, not after a backoff.
            if failure.closedByServer, !retriedClosedConnection, !Task.isCancelled {
                retriedClosedConnection = true
                logger.debug("\(method.rawValue) \(path): the server had closed the connection; sending again on a new one")
                continue
            }
            let responseHeaders = failure.responseHeaders
            let serverSays = RetryPolicy.serverDecision(headers: responseHeaders)
            let retryable = serverSays ?? failure.error.isRetryable
            guard retryable, attempt < configuration.retryPolicy.maxRetries, !Task.isCancelled else {
                throw failure.error
            }
            let delay = configuration.retryPolicy.delay(beforeRetry: attempt, headers: responseHeaders)
            logger.info("retrying \(method.rawValue) \(path) in \(delay) (attempt \(attempt + 2) of \(configuration.retryPolicy.maxRetries + 1)): \(failure.localizedDescription)")
            do {
                try await Task.sleep(for: delay)
            } catch {
                throw OpenAIError.cancelled
            }
            attempt += 1
        }
    }

    /// One try at one server: a successful response whose body is not yet read, or why not.
    private func sendOnce(_ method: HTTPMethod, _ endpoint: String, _ path: String, body: Body?, accept: String) async -> Result<HTTPClientResponse, Failure> {
        var request = HTTPClientRequest(url: endpoint + path)
        request.method = method
        request.headers = headers(accept: accept)
        if let body {
            request.headers.replaceOrAdd(name: "Content-Type", value: body.contentType)
            request.body = .bytes(ByteBuffer(bytes: body.data))
        }
        let started = ContinuousClock.now
        var failure: Failure
        do {
            // The read timeout bounds silences; this deadline only stops a request that never ends.
            let response = try await http.execute(request, timeout: .hours(24), logger: nil)
            if (200..<300).contains(response.status.code) {
                logger.debug("\(method.rawValue) \(path) → \(response.status.code) in \(ContinuousClock.now - started)")
                return .success(response)
            }
            failure = await Self.apiError(from: response)
        } catch {
            failure = Self.map(error)
            if case .connection(let reason) = failure.error {
                failure.error = .connection("\(reason) (\(endpoint))")
            }
        }
        logger.debug("\(method.rawValue) \(path) failed: \(failure.localizedDescription)")
        return .failure(failure)
    }

    /// Sends a request and reads the whole successful body.
    func sendAndCollect(_ method: HTTPMethod, _ path: String, body: Body? = nil, accept: String = "application/json") async throws -> (Data, HTTPHeaders) {
        let response = try await send(method, path, body: body, accept: accept)
        do {
            let buffer = try await response.body.collect(upTo: Self.maxBodyBytes)
            return (Data(buffer.readableBytesView), response.headers)
        } catch {
            throw Self.map(error).error
        }
    }

    /// Sends JSON and decodes a JSON answer.
    func sendJSON<Response: Decodable>(_ method: HTTPMethod, _ path: String, body: Body? = nil, as type: Response.Type) async throws -> Response {
        let (data, _) = try await sendAndCollect(method, path, body: body)
        do {
            return try JSONDecoder().decode(Response.self, from: data)
        } catch {
            throw OpenAIError.invalidResponse("\(path): \(Self.describe(decodingError: error)); body starts: \(String(decoding: data.prefix(200), as: UTF8.self))")
        }
    }

    private func headers(accept: String) -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.add(name: "Accept", value: accept)
        headers.add(name: "User-Agent", value: "Sibyl/0.1 (Swift)")
        if let key = configuration.apiKey { headers.add(name: "Authorization", value: "Bearer \(key)") }
        if let organization = configuration.organization { headers.add(name: "OpenAI-Organization", value: organization) }
        if let project = configuration.project { headers.add(name: "OpenAI-Project", value: project) }
        return headers
    }

    // MARK: Error mapping

    /// An error with the response headers it came with (for `retry-after`).
    struct Failure: Error {
        var error: OpenAIError
        var responseHeaders: [(String, String)] = []
        /// The server closed the connection before any answer (a kept-alive connection it had let go).
        var closedByServer = false
        var localizedDescription: String { error.localizedDescription }
    }

    static func apiError(from response: HTTPClientResponse) async -> Failure {
        let status = Int(response.status.code)
        let data = (try? await response.body.collect(upTo: 1024 * 1024)).map { Data($0.readableBytesView) } ?? Data()
        let detail = errorDetail(from: data) ?? APIErrorDetail(message: response.status.reasonPhrase)
        let requestID = response.headers.first(name: "x-request-id")
        return Failure(
            error: .api(status: status, detail: detail, requestID: requestID),
            responseHeaders: response.headers.map { ($0.name, $0.value) }
        )
    }

    static func errorDetail(from data: Data) -> APIErrorDetail? {
        if let envelope = try? JSONDecoder().decode(ErrorEnvelope.self, from: data) { return envelope.error }
        if let loose = try? JSONDecoder().decode(LooseErrorEnvelope.self, from: data),
           let message = loose.error ?? loose.message ?? loose.detail {
            return APIErrorDetail(message: message)
        }
        let text = String(decoding: data.prefix(500), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : APIErrorDetail(message: text)
    }

    static func map(_ error: any Error) -> Failure {
        switch error {
        case let failure as Failure: return failure
        case let error as OpenAIError: return Failure(error: error)
        case is CancellationError: return Failure(error: .cancelled)
        case let error as HTTPClientError:
            switch error {
            case .connectTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout:
                return Failure(error: .timeout("connecting"))
            case .readTimeout:
                return Failure(error: .timeout("no data for longer than the read timeout"))
            case .deadlineExceeded:
                return Failure(error: .timeout("request deadline passed"))
            case .cancelled, .requestStreamCancelled:
                return Failure(error: .cancelled)
            case .invalidURL, .emptyHost, .emptyScheme:
                return Failure(error: .invalidRequest("the base URL is not valid (\(error))"))
            case .remoteConnectionClosed:
                return Failure(error: .connection(String(describing: error)), closedByServer: true)
            default:
                return Failure(error: .connection(String(describing: error)))
            }
        case let error as IOError:
            return Failure(error: .connection(String(cString: strerror(error.errnoCode)).lowercased()),
                           closedByServer: error.errnoCode == EPIPE || error.errnoCode == ECONNRESET)
        case let error as ChannelError where error == .ioOnClosedChannel || error == .eof || error == .outputClosed:
            return Failure(error: .connection(String(describing: error)), closedByServer: true)
        case let error as NIOConnectionError:
            if let first = error.connectionErrors.first?.error { return map(first) }
            return Failure(error: .connection("could not connect to \(error.host):\(error.port)"))
        default:
            return Failure(error: .connection(String(describing: error)))
        }
    }

    static func describe(decodingError error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            return "missing \"\(key.stringValue)\" at \(path(context))"
        case DecodingError.typeMismatch(let type, let context), DecodingError.valueNotFound(let type, let context):
            return "expected \(type) at \(path(context))"
        case DecodingError.dataCorrupted(let context):
            return "malformed JSON at \(path(context))"
        default:
            return String(describing: error)
        }
    }

    private static func path(_ context: DecodingError.Context) -> String {
        let path = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        return path.isEmpty ? "top level" : path
    }
}
