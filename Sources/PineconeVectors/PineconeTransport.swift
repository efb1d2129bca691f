import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// One HTTP request to Pinecone, as the clients build it.
public struct PineconeRequest: Sendable, Hashable {
    public var method: String
    public var url: String
    /// Header names as sent (`Api-Key`, `X-Pinecone-Api-Version` …).
    public var headers: [String: String]
    public var body: Data?

    public init(method: String, url: String, headers: [String: String], body: Data?) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// Pinecone's answer: status, headers (names lowercased) and the whole body.
public struct PineconeResponse: Sendable, Hashable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.body = body
    }
}

/// Sends requests and returns answers of any status; throws only when there is no answer.
/// The clients take one so that tests can see exactly what would go over the wire.
public protocol PineconeTransport: Sendable {
    func send(_ request: PineconeRequest, timeout: Duration) async throws -> PineconeResponse
}

/// The transport that talks HTTP, through AsyncHTTPClient's shared client.
public struct HTTPClientTransport: PineconeTransport {
    /// The largest answer read into memory.
    static let maxBodyBytes = 64 * 1024 * 1024
    let client: HTTPClient

    public init(client: HTTPClient = .shared) {
        self.client = client
    }

    public func send(_ request: PineconeRequest, timeout: Duration) async throws -> PineconeResponse {
        var outgoing = HTTPClientRequest(url: request.url)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for (name, value) in request.headers.sorted(by: { $0.key < $1.key }) {
            outgoing.headers.add(name: name, value: value)
        }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await client.execute(outgoing, timeout: .nanoseconds(timeout.nanoseconds))
        let body = try await response.body.collect(upTo: Self.maxBodyBytes)
        var headers: [String: String] = [:]
        for header in response.headers where headers[header.name.lowercased()] == nil {
            headers[header.name.lowercased()] = header.value
        }
        return PineconeResponse(status: Int(response.status.code), headers: headers, body: Data(body.readableBytesView))
    }
}

extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
