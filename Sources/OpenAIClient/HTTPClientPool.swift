import AsyncHTTPClient
import NIOCore
import Synchronization

/// Long-lived HTTP clients, one per timeout setting.
///
/// AsyncHTTPClient sets connect and read timeouts per client, not per request, and a client must
/// be shut down before it is released. Keeping one client per distinct setting for the life of the
/// process (as `HTTPClient.shared` does) gives every request its own timeouts without that burden.
enum HTTPClientPool {
    private struct Key: Hashable {
        var connect: Int64
        var read: Int64
    }

    private static let clients = Mutex<[Key: HTTPClient]>([:])

    static func client(connectTimeout: Duration, readTimeout: Duration) -> HTTPClient {
        let key = Key(connect: connectTimeout.nanoseconds, read: readTimeout.nanoseconds)
        return clients.withLock { clients in
            if let client = clients[key] { return client }
            var configuration = HTTPClient.Configuration()
            configuration.timeout = .init(connect: .nanoseconds(key.connect), read: .nanoseconds(key.read))
            configuration.redirectConfiguration = .follow(max: 5, allowCycles: false)
            // Our retry policy already retries failed connections; the client's own retrying would
            // hold a request for the whole connect timeout when a local server is simply down.
            configuration.connectionPool.retryConnectionEstablishment = false
            // A server answers many people at once through one provider: AsyncHTTPClient's default
            // of 8 connections per host would queue the ninth answer behind the first eight.
            configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 512
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
            clients[key] = client
            return client
        }
    }
}

extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
