/// Settings for an embedding request.
public struct EmbeddingOptions: Sendable, Hashable {
    public var model: String?
    /// Shorter vectors, for models that support it (OpenAI's text-embedding-3 family).
    public var dimensions: Int?

    public init(model: String? = nil, dimensions: Int? = nil) {
        self.model = model
        self.dimensions = dimensions
    }
}

/// Vectors for a list of texts, in the order the texts were given.
public struct EmbeddingResult: Sendable, Hashable {
    public var vectors: [[Float]]
    public var model: String
    /// Prompt tokens the provider counted, summed over all requests.
    public var promptTokens: Int?

    public init(vectors: [[Float]], model: String, promptTokens: Int?) {
        self.vectors = vectors
        self.model = model
        self.promptTokens = promptTokens
    }
}
