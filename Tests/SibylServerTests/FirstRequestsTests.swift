import Foundation
import HummingbirdTesting
import Testing
@testable import SibylServer

/// A page's first requests come together (the Documents page asks for documents and collections
/// at once): on a fresh data directory each database file is opened and migrated once, whatever
/// arrives first, and every request is answered.
@Suite("The first requests on a fresh data directory", .timeLimit(.minutes(10)))
struct FirstRequestsTests {
    @Test func manyParallelFirstRequestsAreAllAnswered() async throws {
        // Live, each request on a connection of its own, so that they really run at once.
        try await withServerFixture(testing: .live) { fixture in
            let port = try #require(fixture.client.port)
            let paths = ["/api/v1/documents", "/api/v1/collections", "/api/v1/conversations", "/api/v1/personas", "/api/v1/search?q=anything&mode=lexical"]
            let statuses = try await withThrowingTaskGroup(of: (String, Int).self) { group in
                for index in 0..<40 {
                    let path = paths[index % paths.count]
                    group.addTask {
                        (path, try await request(port: port, "GET", path).status)
                    }
                }
                var all: [(String, Int)] = []
                for try await status in group { all.append(status) }
                return all
            }
            #expect(statuses.count == 40)
            for (path, status) in statuses where !(path.hasPrefix("/api/v1/search") && status == 503) {
                #expect(status == 200, "\(path) answered \(status)")
            }
        }
    }
}
