import Foundation
import OpenAITestServer
import SibylCore
import Testing
@testable import OpenAIClient

@Suite("Embeddings", .timeLimit(.minutes(10)))
struct EmbeddingsTests {
    @Test func batchesStayWithinInputAndTokenLimits() {
        let counter = EstimatingTokenCounter()
        let many = Array(repeating: "short", count: 5000)
        #expect(OpenAIClient.embeddingBatches(many, counter: counter) == [0..<2048, 2048..<4096, 4096..<5000])
        let big = Array(repeating: String(repeating: "x", count: 3000), count: 700)  // 1,000 tokens each by the estimate
        let batches = OpenAIClient.embeddingBatches(big, counter: counter)
        #expect(batches == [0..<300, 300..<600, 600..<700])
        #expect(OpenAIClient.embeddingBatches([], counter: counter).isEmpty)
    }

    @Test func vectorsComeBackInInputOrderAcrossBatches() async throws {
        try await withServer { server in
            // The server answers in reverse order; each vector encodes its input's number.
            server.handle("/v1/embeddings") { request in
                let inputs = request.json?["input"] as? [String] ?? []
                let data = inputs.enumerated().reversed().map { index, text in
                    ["object": "embedding", "index": index, "embedding": [Double(text) ?? -1, 0.5]] as [String: Any]
                }
                return .json(object: ["object": "list", "data": data, "model": "emb-served", "usage": ["prompt_tokens": inputs.count, "total_tokens": inputs.count]])
            }
            let texts = (0..<2100).map(String.init)
            let result = try await makeClient(server).embed(texts, options: EmbeddingOptions(model: "emb", dimensions: 2))
            #expect(result.vectors.count == 2100)
            #expect(result.vectors.map { Int($0[0]) } == Array(0..<2100))
            #expect(result.model == "emb-served")
            #expect(result.promptTokens == 2100)
            let requests = server.requests(to: "/v1/embeddings")
            #expect(requests.count == 2)
            #expect(requests[0].json?["dimensions"] as? Int == 2)
            #expect((requests[0].json?["input"] as? [String])?.count == 2048)
        }
    }

    @Test func aShortAnswerIsAnError() async throws {
        try await withServer { server in
            server.enqueue(.json(#"{"data":[{"index":0,"embedding":[1]}]}"#), for: "/v1/embeddings")
            await #expect(throws: OpenAIError.self) {
                try await makeClient(server).embed(["a", "b"], options: EmbeddingOptions())
            }
        }
    }
}
