import Foundation
import SibylCore
import Testing
@testable import PineconeVectors

/// Typed errors from Pinecone's error bodies, and which failures are tried again.
@Suite(.timeLimit(.minutes(10)))
struct ErrorAndRetryTests {
    func index(_ transport: ScriptedTransport, retries: RetryPolicy = quickRetries, key: String = testKey) -> PineconeIndexClient {
        PineconeIndexClient(baseURL: "http://pinecone.invalid", apiKey: key, dimension: 3, transport: transport, retryPolicy: retries)
    }

    func upsertError(_ transport: ScriptedTransport, key: String = testKey) async -> PineconeError? {
        do {
            try await index(transport, key: key).upsert([PineconeVector(id: "1", values: [1, 0, 0])], namespace: "a")
            return nil
        } catch {
            return error as? PineconeError
        }
    }

    @Test(arguments: [429, 500, 502, 503])
    func rateLimitsAndServerErrorsAreRetried(status: Int) async throws {
        let transport = ScriptedTransport([ScriptedTransport.json(status, #"{"code": 14, "message": "try later", "details": []}"#)])
        try await index(transport).upsert([PineconeVector(id: "1", values: [1, 0, 0])], namespace: "a")
        #expect(transport.requests.count == 2, "one failure, then success")
    }

    @Test(arguments: [400, 401, 403, 404, 409, 412, 422])
    func otherClientErrorsAreNot(status: Int) async throws {
        let transport = ScriptedTransport([ScriptedTransport.json(status, #"{"code": 3, "message": "no good", "details": []}"#)])
        let error = await upsertError(transport)
        #expect(error == .api(status: status, code: "3", message: "no good", operation: "upsert"))
        #expect(transport.requests.count == 1)
    }

    @Test func connectionFailuresAreRetriedThenReported() async throws {
        let transport = ScriptedTransport(Array(repeating: .fail(PineconeError.connection("connection refused")), count: 3))
        let error = await upsertError(transport)
        #expect(error == .connection("connection refused"))
        #expect(transport.requests.count == 3, "the first try and two retries")
    }

    @Test func retriesStopAtTheLimitWithTheLastError() async throws {
        let busy = ScriptedTransport.json(503, #"{"code": 14, "message": "unavailable", "details": []}"#)
        let transport = ScriptedTransport([busy, busy, busy, busy])
        let error = await upsertError(transport)
        #expect(error?.status == 503)
        #expect(error?.errorDescription?.contains("unavailable") == true)
        #expect(transport.requests.count == 3)
    }

    @Test func noRetriesWhenThePolicySaysNone() async throws {
        let transport = ScriptedTransport([ScriptedTransport.json(503, #"{"code": 14, "message": "unavailable"}"#)])
        do {
            try await index(transport, retries: .none).upsert([PineconeVector(id: "1", values: [1, 0, 0])], namespace: "a")
            Issue.record("expected a failure")
        } catch {}
        #expect(transport.requests.count == 1)
    }

    @Test func retryAfterIsHonoured() async throws {
        let policy = RetryPolicy(maxRetries: 2, initialDelay: .milliseconds(500), maxDelay: .seconds(8), maxHonouredRetryAfter: .seconds(60))
        #expect(policy.delay(beforeRetry: 0, retryAfter: "2", jitter: 0) == .seconds(2))
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        #expect(policy.delay(beforeRetry: 0, retryAfter: formatter.string(from: now.addingTimeInterval(5)), now: now, jitter: 0) == .seconds(5))
        // Too long a wait, or nonsense: exponential backoff instead.
        #expect(policy.delay(beforeRetry: 0, retryAfter: "3600", jitter: 0) == .milliseconds(500))
        #expect(policy.delay(beforeRetry: 2, retryAfter: "soon", jitter: 0) == .seconds(2))
        #expect(policy.delay(beforeRetry: 10, retryAfter: nil, jitter: 0) == .seconds(8), "capped")
        #expect(policy.delay(beforeRetry: 0, retryAfter: nil, jitter: 1) == .milliseconds(375), "jitter takes up to a quarter off")

        // A 429 asking for 0.2 s makes the retry wait about that long, though the policy's own backoff is 1 ms.
        let transport = ScriptedTransport([ScriptedTransport.json(429, #"{"code": 8, "message": "slow down"}"#, headers: ["Retry-After": "0.2"])])
        let started = ContinuousClock.now
        try await index(transport).upsert([PineconeVector(id: "1", values: [1, 0, 0])], namespace: "a")
        #expect(ContinuousClock.now - started >= .milliseconds(190))
        #expect(transport.requests.count == 2)
    }

    @Test func controlPlaneErrorBodiesAreRead() async throws {
        let transport = ScriptedTransport([ScriptedTransport.json(409, #"{"error": {"code": "ALREADY_EXISTS", "message": "Resource already exists."}, "status": 409}"#)])
        let control = PineconeControlClient(apiKey: testKey, transport: transport, retryPolicy: quickRetries)
        do {
            _ = try await control.createIndex(PineconeIndexRequest(name: "sibyl", dimension: 384))
            Issue.record("expected a conflict")
        } catch let error as PineconeError {
            #expect(error == .api(status: 409, code: "ALREADY_EXISTS", message: "Resource already exists.", operation: "create index"))
        }
    }

    @Test func aMissingIndexIsNil() async throws {
        let transport = ScriptedTransport([ScriptedTransport.json(404, #"{"error": {"code": "NOT_FOUND", "message": "Resource sibyl not found"}, "status": 404}"#)])
        let control = PineconeControlClient(apiKey: testKey, transport: transport, retryPolicy: quickRetries)
        #expect(try await control.indexIfExists(named: "sibyl") == nil)
    }

    @Test func bodiesThatAreNotJSONAreQuoted() async throws {
        let transport = ScriptedTransport([.answer(PineconeResponse(status: 400, body: Data("upstream said no".utf8)))])
        let error = await upsertError(transport)
        #expect(error == .api(status: 400, code: nil, message: "upstream said no", operation: "upsert"))
    }

    @Test func theKeyNeverShowsInAnError() async throws {
        let key = "pcsk_7Hq2_SECRETSECRETSECRET1234"
        let transport = ScriptedTransport([ScriptedTransport.json(401, #"{"code": 16, "message": "Invalid API Key: \#(key)", "details": []}"#)])
        let error = try #require(await upsertError(transport, key: key))
        let shown = "\(error) \(error.localizedDescription) \(error.recoverySuggestion ?? "")"
        #expect(!shown.contains(key))
        #expect(shown.contains("PINECONE_API_KEY"))
    }

    @Test func anAnswerThatCannotBeReadIsAnInvalidResponse() async throws {
        let transport = ScriptedTransport([ScriptedTransport.json(200, #"{"matches": [{"score": 0.5}]}"#)])
        await #expect(throws: PineconeError.self) {
            _ = try await index(transport).query(vector: [1, 0, 0], topK: 1, namespace: "a")
        }
        #expect(transport.requests.count == 1, "not retried")
    }
}

extension ErrorAndRetryTests {
    @Test func deletingFromANamespaceThatDoesNotExistIsDone() async throws {
        let missing = ScriptedTransport.json(404, #"{"code": 5, "message": "Namespace not found", "details": []}"#)
        let transport = ScriptedTransport([missing, missing, missing])
        let client = index(transport)
        try await client.delete(ids: ["1"], namespace: "never-written")
        try await client.delete(filter: PineconeVectorStore.filter(documentID: 1), namespace: "never-written")
        try await client.deleteAll(namespace: "never-written")
        #expect(transport.requests.count == 3, "each once, none retried")
    }
}
