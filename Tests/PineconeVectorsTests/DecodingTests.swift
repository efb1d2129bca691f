import Foundation
import SibylCore
import Testing
@testable import PineconeVectors

/// Pinecone's answers decode: the specs' examples and hand-written fixtures in `Fixtures/`
/// (absent optional fields, unknown extra fields, empty matches, usage or not), all of which
/// `scripts/pinecone/spec-check.py` validates against the 2025-10 specs so they cannot drift.
@Suite(.timeLimit(.minutes(10)))
struct DecodingTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    struct Fixture: Decodable {
        var spec: String
        var operation: String
        var status: Int
        var body: JSONValue
    }

    static func fixture(_ name: String) throws -> (Fixture, Data) {
        let fixture = try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: fixtures.appendingPathComponent("\(name).json")))
        return (fixture, try JSONEncoder().encode(fixture.body))
    }

    static var names: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: fixtures.path)) ?? []).filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
    }

    func decode<T: Decodable>(_ type: T.Type, _ name: String) throws -> T {
        try JSONDecoder().decode(T.self, from: Self.fixture(name).1)
    }

    @Test(arguments: names)
    func everyFixtureDecodesAsItsOperationsAnswer(name: String) throws {
        let (fixture, data) = try Self.fixture(name)
        let connection = PineconeConnection(baseURL: "http://x", apiKey: testKey, transport: ScriptedTransport(), retryPolicy: .none, timeout: .seconds(1), logger: .init(label: "test"))
        guard (200..<300).contains(fixture.status) else {
            let error = connection.apiError(PineconeResponse(status: fixture.status, body: data), operation: fixture.operation)
            #expect(error.status == fixture.status)
            return
        }
        switch fixture.operation {
        case "queryVectors": _ = try connection.decode(PineconeQueryResult.self, from: data, operation: name)
        case "upsertVectors": _ = try connection.decode(UpsertResponse.self, from: data, operation: name)
        case "fetchVectors": _ = try connection.decode(FetchResponse.self, from: data, operation: name)
        case "describeIndexStats": _ = try connection.decode(PineconeIndexStats.self, from: data, operation: name)
        case "listVectors": _ = try connection.decode(ListResponse.self, from: data, operation: name)
        case "deleteVectors": _ = try connection.decode(JSONValue.self, from: data, operation: name)
        case "describe_index": _ = try connection.decode(PineconeIndexModel.self, from: data, operation: name)
        case "list_indexes": _ = try connection.decode(IndexList.self, from: data, operation: name)
        default: Issue.record("no decoder for \(fixture.operation)")
        }
    }

    @Test func queryAnswers() throws {
        let full = try decode(PineconeQueryResult.self, "query-full")
        #expect(full.matches.map(\.id) == ["12", "13"])
        #expect(full.matches[0].metadata?["document_id"]?.integerValue == 3)
        #expect(full.matches[0].metadata?["tags"] == .array([.string("a"), .string("b")]))
        #expect(full.matches[1].values == nil && full.matches[1].metadata == nil)
        #expect(full.usage?.readUnits == 5)
        #expect(PineconeVectorStore.matches(full) == [.init(id: 12, score: 0.87), .init(id: 13, score: 0.5)])

        #expect(try decode(PineconeQueryResult.self, "query-empty").matches.isEmpty, "no fields at all: the spec requires none")
        #expect(try decode(PineconeQueryResult.self, "query-no-matches").matches.isEmpty)
        let extra = try decode(PineconeQueryResult.self, "query-extra-fields")
        #expect(extra.matches.map(\.id) == ["7"] && extra.usage?.readUnits == 1)
        let idOnly = try decode(PineconeQueryResult.self, "query-id-only")
        #expect(idOnly.matches.first?.score == nil && idOnly.usage == nil)
    }

    @Test func statsAndListsAndFetches() throws {
        let stats = try decode(PineconeIndexStats.self, "describe-index-stats-spec-example")
        #expect(stats.dimension == 1024 && stats.totalVectorCount == 80000)
        #expect(stats.indexFullness == nil, "the example's index_fullness is not the schema's indexFullness")
        #expect(stats.namespaces?[""]?.vectorCount == 50000)
        #expect(try decode(ListResponse.self, "list-page").pagination?.next == "Tm90aGluZyB0byBzZWUgaGVyZQo=")
        #expect(try decode(ListResponse.self, "list-last-page").pagination == nil)
        #expect(try decode(FetchResponse.self, "fetch-spec-example").vectors?["id-2"]?.values == [2.0, 1.0])
        #expect(try decode(FetchResponse.self, "fetch-none").vectors == nil)
    }

    @Test func indexModels() throws {
        let serverless = try decode(PineconeIndexModel.self, "describe-index-serverless-spec-example")
        #expect(serverless.host == "movie-recommendations-c01b5b5.svc.us-east1-gcp.pinecone.io")
        #expect(serverless.dimension == 1536 && serverless.metric == "cosine" && !serverless.status.ready && serverless.vectorType == "dense")
        let pod = try decode(PineconeIndexModel.self, "describe-index-pod-spec-example")
        if case .object(let spec) = pod.spec { #expect(spec["pod"] != nil) } else { Issue.record("spec kept as an object") }
        let listed = try decode(IndexList.self, "list-indexes-spec-example").indexes ?? []
        #expect(listed.map(\.name) == ["semantic-search", "image-search", "sparse-index"])
        #expect(listed[2].dimension == nil, "a sparse index has no dimension")
        #expect(try decode(IndexList.self, "list-indexes-empty").indexes == [])
        let control = PineconeControlClient(apiKey: testKey, transport: ScriptedTransport())
        #expect(control.dataPlaneURL(host: serverless.host) == "https://movie-recommendations-c01b5b5.svc.us-east1-gcp.pinecone.io")
        let local = PineconeControlClient(baseURL: "http://127.0.0.1:9/control", apiKey: testKey, transport: ScriptedTransport())
        #expect(local.dataPlaneURL(host: "127.0.0.1:9") == "http://127.0.0.1:9", "a local test server keeps plain http")
    }

    @Test func errorBodies() throws {
        let connection = PineconeConnection(baseURL: "http://x", apiKey: testKey, transport: ScriptedTransport(), retryPolicy: .none, timeout: .seconds(1), logger: .init(label: "test"))
        let (_, rpc) = try Self.fixture("query-error-rpc")
        #expect(connection.apiError(PineconeResponse(status: 400, body: rpc), operation: "query") == .api(status: 400, code: "3", message: "Vector dimension 3 does not match the dimension of the index 384", operation: "query"))
        let (_, control) = try Self.fixture("create-index-conflict")
        #expect(connection.apiError(PineconeResponse(status: 409, body: control), operation: "create index") == .api(status: 409, code: "ALREADY_EXISTS", message: "Resource already exists.", operation: "create index"))
        #expect(connection.apiError(PineconeResponse(status: 503), operation: "query").errorDescription?.contains("Service Unavailable") == true)
    }

    @Test func metadataNumbersComeBackInEitherForm() throws {
        let decoded = try JSONDecoder().decode([String: JSONValue].self, from: Data(#"{"a": 3, "b": 3.0, "c": 2.5, "d": true, "e": null}"#.utf8))
        #expect(decoded["a"]?.integerValue == 3 && decoded["b"]?.integerValue == 3 && decoded["c"]?.integerValue == nil)
        #expect(decoded["d"] == .bool(true) && decoded["e"] == .null)
    }
}
