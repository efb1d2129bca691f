/// How answers are grounded in documents when the settings do not say otherwise: the one place
/// both the settings' defaults and the retrieval code's own defaults come from.
public enum RetrievalDefaults {
    /// The weight of the vector ranking in hybrid search.
    public static let vectorWeight = 1.0
    /// BM25 counts for less: on the Python FAQ set, vectors alone score nDCG@10 0.887 and BM25
    /// 0.707; a fifth of the weight lets BM25 break ties without pulling good vector matches down.
    public static let lexicalWeight = 0.2
    /// The cosine similarity a passage needs to ground an answer.
    public static let threshold = 0.3
    /// Passages an answer from a remote chat model gets.
    public static let passages = 5
    /// Passages an answer from the local chat model gets: it reads about 90 prompt tokens a
    /// second on 2 cores. On the python3.11-doc answer set (README) 3 passages keep the first word
    /// within 10 s; 4 were slower and no more often right.
    public static let localPassages = 3
    /// A passage's size in the embedder's tokens.
    public static let chunkTokens = 400
    /// The share of a passage repeated at the start of the next, in percent.
    public static let overlapPercent = 15.0
}
