import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Testing
@testable import SibylServer

@Suite("Listing cache", .timeLimit(.minutes(10)))
struct ListingCacheTests {
    private func request(ifNoneMatch etag: String? = nil) -> Request {
        var head = HTTPRequest(method: .get, scheme: "http", authority: "localhost", path: "/api/v1/conversations")
        if let etag { head.headerFields[.ifNoneMatch] = etag }
        return Request(head: head, body: RequestBody(buffer: ByteBuffer()))
    }

    @Test func anEntryIsReusedOnlyWhileItsVersionHoldsAndItIsYoung() async throws {
        let cache = ListingCache(maximumAge: .seconds(3600))
        let version = ListingCache.Version(store: 1, activity: 0)
        var made = 0
        func fetch(_ version: ListingCache.Version, key: String = "") async throws -> Response {
            try await cache.response(for: request(), key: key, version: version) {
                made += 1
                return Data("{\"made\":\(made)}".utf8)
            }
        }
        let first = try await fetch(version)
        _ = try await fetch(version)
        #expect(made == 1)
        _ = try await fetch(ListingCache.Version(store: 2, activity: 0))
        _ = try await fetch(ListingCache.Version(store: 2, activity: 1))
        #expect(made == 3)
        _ = try await fetch(ListingCache.Version(store: 2, activity: 1), key: "limit=1")
        #expect(made == 4)
        #expect(first.headers[.eTag] == ListingCache.etag(of: Data("{\"made\":1}".utf8)))

        // Changes from another process are not counted: an entry lives at most its maximum age.
        let shortLived = ListingCache(maximumAge: .zero)
        for _ in 0..<2 {
            _ = try await shortLived.response(for: request(), key: "", version: version) {
                made += 1
                return Data("[]".utf8)
            }
        }
        #expect(made == 6)
    }

    @Test func aMatchingIfNoneMatchGets304() async throws {
        let cache = ListingCache()
        let version = ListingCache.Version(store: 0, activity: 0)
        let body = Data("{\"items\":[]}".utf8)
        let etag = ListingCache.etag(of: body)
        #expect(try await cache.response(for: request(ifNoneMatch: etag), key: "", version: version) { body }.status == .notModified)
        #expect(try await cache.response(for: request(ifNoneMatch: "\"other\", \(etag)"), key: "", version: version) { body }.status == .notModified)
        #expect(try await cache.response(for: request(ifNoneMatch: "\"other\""), key: "", version: version) { body }.status == .ok)
        #expect(ListingCache.etag(of: Data("a".utf8)) != ListingCache.etag(of: Data("b".utf8)))
    }
}
