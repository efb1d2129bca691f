public import Foundation

/// The sizes of a post-LayerNorm transformer encoder, as the forward pass needs them.
struct EncoderShape: Sendable, Equatable {
    var hidden: Int
    var heads: Int
    var intermediate: Int
    var layers: Int
    /// Rows of the position-embedding table the model reads (after `positionOffset`).
    var positions: Int
    var layerNormEpsilon: Float
    /// Added to a token's index within its sequence to find its position embedding: 0 for BERT,
    /// 2 for RoBERTa-style models, which count positions from the padding id + 1.
    var positionOffset: Int
    /// MPNet's relative position bias: attention scores get a learned bias per head for each
    /// bucket of the key's distance from the query (exact near, logarithmic far); nil for BERT.
    var relativeBuckets: Int?
    var relativeMaxDistance: Int

    var headSize: Int { hidden / heads }
}

/// A sentence-embedding model the in-process encoder runs: its architecture, sizes, files and
/// tokens. Two are supported, both mean-pooled and L2-normalised as sentence-transformers does.
public struct SentenceModel: Sendable, Equatable {
    /// The weight names and embedding layout of a model family.
    enum Family: Sendable, Equatable {
        /// BERT: `attention.self.{query,key,value}`, token-type embeddings.
        case bert
        /// MPNet: `attention.attn.{q,k,v,o}`, relative position bias, no token types.
        case mpnet
    }

    /// The model's name, as reported in results and stored with vectors.
    public let name: String
    /// Length of every vector.
    public let dimension: Int
    /// Longest input in tokens, start and end tokens included; longer texts are truncated.
    public let maxTokens: Int
    /// The variable that names a directory holding this model's files.
    public let directoryVariable: String
    let family: Family
    let shape: EncoderShape
    /// The vocabulary's start, end and unknown tokens.
    let startToken: String, endToken: String, unknownToken: String

    /// all-MiniLM-L6-v2: 6 layers, 384 dimensions; Sibyl's default embedder.
    public static let miniLM = SentenceModel(
        name: "all-MiniLM-L6-v2", dimension: 384, maxTokens: 256, directoryVariable: "SIBYL_MINILM_DIR", family: .bert,
        shape: EncoderShape(
            hidden: 384, heads: 12, intermediate: 1536, layers: 6, positions: 512, layerNormEpsilon: 1e-12,
            positionOffset: 0, relativeBuckets: nil, relativeMaxDistance: 0
        ),
        startToken: "[CLS]", endToken: "[SEP]", unknownToken: "[UNK]"
    )

    /// all-mpnet-base-v2: 12 layers, 768 dimensions, about six times MiniLM's compute per token.
    public static let mpnet = SentenceModel(
        name: "all-mpnet-base-v2", dimension: 768, maxTokens: 384, directoryVariable: "SIBYL_MPNET_DIR", family: .mpnet,
        shape: EncoderShape(
            hidden: 768, heads: 12, intermediate: 3072, layers: 12, positions: 512, layerNormEpsilon: 1e-5,
            positionOffset: 2, relativeBuckets: 32, relativeMaxDistance: 128
        ),
        startToken: "<s>", endToken: "</s>", unknownToken: "[UNK]"
    )

    /// Every model the encoder runs.
    public static let all = [miniLM, mpnet]

    /// The model a name means (with or without the Hugging Face owner, any case), if any.
    public static func named(_ name: String) -> SentenceModel? {
        all.first { $0.accepts(name) }
    }

    /// Whether a requested model name means this model.
    public func accepts(_ requested: String) -> Bool {
        let lowered = requested.lowercased()
        return lowered == name.lowercased() || lowered.hasSuffix("/" + name.lowercased())
    }

    /// The files a model directory must hold.
    public static let weightsFileName = "model.safetensors"
    public static let vocabularyFileName = "vocab.txt"

    /// Where the model is looked for: the model's variable (`$SIBYL_MINILM_DIR`,
    /// `$SIBYL_MPNET_DIR`), else `$SIBYL_ENGINES/models/<name>`, else
    /// `~/.cache/sibyl/engines/models/<name>`.
    public func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let directory = environment[directoryVariable], !directory.isEmpty {
            return URL(fileURLWithPath: directory, isDirectory: true)
        }
        if let engines = environment["SIBYL_ENGINES"], !engines.isEmpty {
            return URL(fileURLWithPath: engines, isDirectory: true)
                .appendingPathComponent("models", isDirectory: true)
                .appendingPathComponent(name, isDirectory: true)
        }
        let home = environment["HOME"].map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.homeDirectoryForCurrentUser
        return home
            .appendingPathComponent(".cache/sibyl/engines/models", isDirectory: true)
            .appendingPathComponent(name, isDirectory: true)
    }

    /// Whether `directory` holds both files the embedder loads.
    public func isInstalled(at directory: URL) -> Bool {
        [Self.weightsFileName, Self.vocabularyFileName].allSatisfy { name in
            FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path)
        }
    }
}

extension EncoderShape {
    /// MPNet's bucket for a key `distance` tokens after (positive) or before (negative) the query:
    /// the lower half of the buckets for keys at or before the query, the upper half for keys
    /// after it; within each half, distances below a quarter of the buckets have one bucket each,
    /// longer ones share buckets on a logarithmic scale up to `relativeMaxDistance`, and anything
    /// farther the half's last bucket.
    static func relativeBucket(distance: Int, buckets: Int, maxDistance: Int) -> Int {
        let half = buckets / 2
        let exact = half / 2
        // The model's convention measures from the key to the query.
        let fromKey = -distance
        var bucket = fromKey < 0 ? half : 0
        let magnitude = abs(fromKey)
        if magnitude < exact {
            bucket += magnitude
        } else {
            // In single precision, with the divisor rounded from double, as the reference computes it.
            let scaled = log(Float(magnitude) / Float(exact)) / Float(log(Double(maxDistance) / Double(exact))) * Float(half - exact)
            bucket += min(exact + Int(scaled), half - 1)
        }
        return bucket
    }
}
