import Foundation
import PineconeVectors
import SibylCore
import Synchronization
import Testing

/// The key every test sends (the strict mock accepts only this one).
let testKey = "test-key"

/// Retries that do not wait, so fault tests run fast.
let quickRetries = RetryPolicy(maxRetries: 2, initialDelay: .milliseconds(1), maxDelay: .milliseconds(5))

/// A transport that records every request and answers from a script, then from `fallback`
/// (a plausible 200 for each operation).
final class ScriptedTransport: PineconeTransport {
    enum Step: Sendable {
        case answer(PineconeResponse)
        case fail(any Error & Sendable)
    }

    private let state = Mutex<(requests: [PineconeRequest], script: [Step])>(([], []))

    init(_ script: [Step] = []) {
        state.withLock { $0.script = script }
    }

    var requests: [PineconeRequest] { state.withLock { $0.requests } }

    /// The JSON bodies of the requests to a path.
    func bodies(_ path: String) -> [[String: Any]] {
        requests.filter { URL(string: $0.url)?.path == path }.compactMap { request in
            request.body.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
        }
    }

    func send(_ request: PineconeRequest, timeout: Duration) async throws -> PineconeResponse {
        let step: Step? = state.withLock { state in
            state.requests.append(request)
            return state.script.isEmpty ? nil : state.script.removeFirst()
        }
        switch step {
        case .answer(let response): return response
        case .fail(let error): throw error
        case nil: return Self.fallback(request)
        }
    }

    static func json(_ status: Int, _ text: String, headers: [String: String] = [:]) -> Step {
        .answer(PineconeResponse(status: status, headers: headers.merging(["content-type": "application/json"]) { a, _ in a }, body: Data(text.utf8)))
    }

    static func fallback(_ request: PineconeRequest) -> PineconeResponse {
        let path = URL(string: request.url)?.path ?? ""
        let body: String
        switch path {
        case "/vectors/upsert":
            let count = (request.body.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }?["vectors"] as? [Any])?.count ?? 0
            body = #"{"upsertedCount": \#(count)}"#
        case "/query": body = #"{"matches": [], "namespace": ""}"#
        case "/describe_index_stats": body = #"{"namespaces": {}, "dimension": 3, "totalVectorCount": 0}"#
        case "/vectors/list": body = #"{"vectors": []}"#
        case "/vectors/fetch": body = #"{"vectors": {}}"#
        default: body = "{}"
        }
        return PineconeResponse(status: 200, headers: ["content-type": "application/json"], body: Data(body.utf8))
    }
}

/// The strict mock `scripts/test.sh` starts (`SIBYL_TEST_PINECONE_URL`); tests that need it skip
/// without it, unless `SIBYL_REQUIRE_ENGINES=1`, which turns its absence into a failure.
enum PineconeMock {
    static let url = ProcessInfo.processInfo.environment["SIBYL_TEST_PINECONE_URL"].flatMap { $0.isEmpty ? nil : $0 }
    static let required = ProcessInfo.processInfo.environment["SIBYL_REQUIRE_ENGINES"] == "1"
    static let enabled = url != nil || required
    static let skipReason: Comment = "no Pinecone mock (set SIBYL_TEST_PINECONE_URL; scripts/test.sh starts one)"

    struct Missing: Error, CustomStringConvertible {
        var description: String {
            "SIBYL_REQUIRE_ENGINES=1 but SIBYL_TEST_PINECONE_URL is not set: start the mock with scripts/pinecone/start-mock.sh (scripts/test.sh does)"
        }
    }

    /// The mock's base URL, or a clear failure.
    static func baseURL() throws -> String {
        guard let url else { throw Missing() }
        return url
    }

    /// A control-plane client for the mock.
    static func control(transport: any PineconeTransport = HTTPClientTransport(), retryPolicy: RetryPolicy = quickRetries) throws -> PineconeControlClient {
        PineconeControlClient(baseURL: try baseURL() + "/control", apiKey: testKey, transport: transport, retryPolicy: retryPolicy)
    }

    /// A data-plane client for the mock (or one of its fault scenarios), for `dimension`-long vectors.
    static func index(scenario: String? = nil, dimension: Int? = 3, apiKey: String = testKey, retryPolicy: RetryPolicy = quickRetries) throws -> PineconeIndexClient {
        let base = try baseURL() + (scenario.map { "/_faults/\($0)" } ?? "")
        return PineconeIndexClient(baseURL: base, apiKey: apiKey, dimension: dimension, retryPolicy: retryPolicy)
    }
}

extension PineconeMock {
    /// Scripts the next answers of a fault scenario (`[{"status": 503}, …]`) and clears its log.
    static func script(_ scenario: String, _ steps: String) async throws {
        let request = PineconeRequest(method: "PUT", url: try baseURL() + "/_scenarios/\(scenario)", headers: ["Content-Type": "application/json"], body: Data(steps.utf8))
        let answer = try await HTTPClientTransport().send(request, timeout: .seconds(10))
        #expect(answer.status == 204)
    }

    /// The statuses the mock gave in a fault scenario, in order (200 for those the strict mock answered).
    static func statuses(_ scenario: String) async throws -> [Int] {
        let request = PineconeRequest(method: "GET", url: try baseURL() + "/_scenarios/\(scenario)", headers: [:], body: nil)
        let answer = try await HTTPClientTransport().send(request, timeout: .seconds(10))
        let log = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
        return (log?["requests"] as? [[String: Any]] ?? []).map { $0["status"] as? Int ?? 200 }
    }
}
