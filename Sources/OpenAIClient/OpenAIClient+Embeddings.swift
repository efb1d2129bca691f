import Foundation
import SibylCore

extension OpenAIClient: Embedder {
    /// The most inputs one embeddings request may carry.
    static let embeddingInputsPerRequest = 2048
    /// The most tokens one embeddings request may carry.
    static let embeddingTokensPerRequest = 300_000

    /// Embeds texts in as few requests as the API's limits allow; vectors come back in input order.
    public func embed(_ texts: [String], options: EmbeddingOptions) async throws -> EmbeddingResult {
        let model = options.model ?? configuration.defaultModels.embeddings
        var vectors: [[Float]] = []
        vectors.reserveCapacity(texts.count)
        var promptTokens: Int?
        var servedModel = model
        for batch in Self.embeddingBatches(texts, counter: EstimatingTokenCounter()) {
            let body = try Self.json(EmbeddingsBody(model: model, input: Array(texts[batch]), dimensions: options.dimensions, encodingFormat: "float"))
            let response = try await sendJSON(.POST, "/embeddings", body: body, as: EmbeddingsResponse.self)
            guard response.data.count == batch.count else {
                throw OpenAIError.invalidResponse("asked for \(batch.count) embeddings, got \(response.data.count)")
            }
            // The API labels each vector with its input's index; the order of `data` is not promised.
            let ordered = response.data.sorted { $0.index < $1.index }
            guard ordered.map(\.index) == Array(0..<batch.count) else {
                throw OpenAIError.invalidResponse("the embedding indexes do not match the inputs")
            }
            vectors.append(contentsOf: ordered.map(\.embedding))
            if let tokens = response.usage?.promptTokens { promptTokens = (promptTokens ?? 0) + tokens }
            if let name = response.model { servedModel = name }
        }
        return EmbeddingResult(vectors: vectors, model: servedModel, promptTokens: promptTokens)
    }

    /// Index ranges that keep each request within the input-count and token limits.
    static func embeddingBatches(_ texts: [String], counter: some TokenCounter, maxInputs: Int = embeddingInputsPerRequest, maxTokens: Int = embeddingTokensPerRequest) -> [Range<Int>] {
        var batches: [Range<Int>] = []
        var start = 0
        var tokens = 0
        for (index, text) in texts.enumerated() {
            let cost = counter.count(text)
            if index > start, index - start >= maxInputs || tokens + cost > maxTokens {
                batches.append(start..<index)
                start = index
                tokens = 0
            }
            tokens += cost
        }
        if start < texts.count { batches.append(start..<texts.count) }
        return batches
    }
}
