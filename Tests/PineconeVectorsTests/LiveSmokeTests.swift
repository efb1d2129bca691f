import Foundation
import SibylCore
import SibylTestSupport
import Testing
@testable import PineconeVectors

/// Against real Pinecone, only when `PINECONE_API_KEY` is set (never in CI): upsert three vectors,
/// find them, delete them. The index (`SIBYL_PINECONE_SMOKE_INDEX`, default `sibyl-smoke`, 8
/// dimensions) is made when missing and kept; each run writes to a namespace of its own and
/// empties it. Pinecone is eventually consistent, so the query is repeated for up to a minute.
/// The live test's settings.
enum LivePinecone {
    static let key = ProcessInfo.processInfo.environment["PINECONE_API_KEY"].flatMap { $0.isEmpty ? nil : $0 }
    static let indexName = ProcessInfo.processInfo.environment["SIBYL_PINECONE_SMOKE_INDEX"] ?? "sibyl-smoke"
}

@Suite(.timeLimit(.minutes(10)), .enabled(if: LivePinecone.key != nil, "set PINECONE_API_KEY to run the live Pinecone smoke test"))
struct LiveSmokeTests {

    @Test func upsertQueryDelete() async throws {
        let control = PineconeControlClient(apiKey: try #require(LivePinecone.key))
        let model = if let existing = try await control.indexIfExists(named: LivePinecone.indexName) {
            existing
        } else {
            try await control.createIndex(PineconeIndexRequest(name: LivePinecone.indexName, dimension: 8))
        }
        let ready = model.status.ready ? model : try await control.waitUntilReady(named: LivePinecone.indexName, timeout: .seconds(300))
        let store = PineconeVectorStore(index: control.indexClient(for: ready))
        let namespace = "smoke-\(UUID().uuidString.prefix(8).lowercased())"
        let axes: [[Float]] = (0..<3).map { axis in (0..<8).map { $0 == axis ? 1 : 0 } }
        try await store.upsert(axes.enumerated().map { VectorRecord(id: Int64($0.offset + 1), documentID: 1, vector: $0.element) }, namespace: namespace)
        var failure: (any Error)?
        do {
            // Pinecone makes writes searchable a while later and says so to no one: asked until they are.
            var matches: [Int64] = []
            try await eventually("the three vectors searchable; found \(matches)") {
                matches = try await store.query(axes[1], k: 3, namespace: namespace, documentID: 1).map(\.id)
                return matches.count >= 3
            }
            #expect(matches.first == 2, "the vector itself is nearest")
            #expect(Set(matches) == [1, 2, 3])
        } catch {
            failure = error
        }
        try await store.removeAll(namespace: namespace)
        if let failure { throw failure }
    }
}
