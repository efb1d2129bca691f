import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import Synchronization

/// Several OpenAI-compatible servers that serve the same models (llama-servers, vLLM nodes), used in
/// turn: each request starts at the next one. One that cannot be reached, times out or answers 5xx
/// is left out, and the request goes on to the next server at once; a health check (`GET /models`
/// every cool-down, where any answer below 500 means the server is up) brings it back when it
/// answers again. Servers left out are still tried after the others: an answer beats a refusal.
///
/// Pools are shared per list of endpoints, so every client of a provider sees the same health.
final class EndpointPool: Sendable {
    let endpoints: [String]
    private let cooldown: Duration
    private let state = Mutex(State())

    private struct State {
        var next = 0
        /// Endpoints out of the rotation, each watched by a health check.
        var down: Set<String> = []
    }

    private static let pools = Mutex<[PoolKey: EndpointPool]>([:])

    private struct PoolKey: Hashable {
        var endpoints: [String]
        var cooldown: Duration
    }

    private init(endpoints: [String], cooldown: Duration) {
        self.endpoints = endpoints
        self.cooldown = cooldown
    }

    /// The pool for this list of endpoints.
    static func shared(for endpoints: [String], cooldown: Duration) -> EndpointPool {
        pools.withLock { pools in
            let key = PoolKey(endpoints: endpoints, cooldown: cooldown)
            if let pool = pools[key] { return pool }
            let pool = EndpointPool(endpoints: endpoints, cooldown: cooldown)
            pools[key] = pool
            return pool
        }
    }

    /// The endpoints to try for one request, in order: the healthy ones, from the next in turn,
    /// then those out of the rotation.
    func order() -> [String] {
        state.withLock { state in
            let start = state.next % endpoints.count
            state.next &+= 1
            let rotated = Array(endpoints[start...] + endpoints[..<start])
            return rotated.filter { !state.down.contains($0) } + rotated.filter { state.down.contains($0) }
        }
    }

    /// Whether an endpoint is in the rotation.
    func isUp(_ endpoint: String) -> Bool {
        state.withLock { !$0.down.contains(endpoint) }
    }

    /// The endpoint answered: back in the rotation (its health check stops).
    func succeeded(_ endpoint: String) {
        state.withLock { _ = $0.down.remove(endpoint) }
    }

    /// The endpoint failed: out of the rotation, checked every cool-down until it answers.
    func failed(_ endpoint: String, http: HTTPClient, logger: Logger) {
        guard state.withLock({ $0.down.insert(endpoint).inserted }) else { return }
        logger.warning("\(endpoint) is out of the rotation; checking it every \(cooldown)")
        Task.detached { [self] in
            while isUp(endpoint) == false {
                try? await Task.sleep(for: cooldown)
                if await Self.answers(endpoint, http: http) {
                    succeeded(endpoint)
                    logger.info("\(endpoint) answers again: back in the rotation")
                }
            }
        }
    }

    /// The health check: any HTTP answer below 500 to `GET /models` (an unauthorised one included:
    /// the server is up, the key is the request's business).
    private static func answers(_ endpoint: String, http: HTTPClient) async -> Bool {
        var request = HTTPClientRequest(url: endpoint + "/models")
        request.method = .GET
        guard let response = try? await http.execute(request, timeout: .seconds(5)) else { return false }
        _ = try? await response.body.collect(upTo: 1 << 20)
        return response.status.code < 500
    }
}

extension OpenAIError {
    /// Whether the failure says more about the server than about the request: another server of
    /// the same pool may well answer it.
    var meansEndpointDown: Bool {
        switch self {
        case .connection, .timeout: true
        case .api(let status, _, _): (status ?? 0) >= 500
        case .streamInterrupted, .invalidResponse, .invalidRequest, .cancelled: false
        }
    }
}
