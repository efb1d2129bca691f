import Foundation

/// Why the MiniLM embedder could not load its model or answer a request.
public enum MiniLMError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A file the model needs is not there.
    case missingFile(path: String)
    /// `vocab.txt` is unreadable or lacks a required token.
    case invalidVocabulary(path: String, reason: String)
    /// `model.safetensors` is unreadable or corrupt.
    case invalidWeights(SafeTensorsError)
    /// A tensor has the wrong shape for all-MiniLM-L6-v2.
    case unexpectedShape(tensor: String, expected: [Int], found: [Int])
    /// The vocabulary and the embedding matrix disagree on the number of tokens.
    case vocabularyMismatch(vocabularyTokens: Int, embeddingRows: Int)
    /// The request names a different embedding model.
    case unsupportedModel(String)
    /// The request asks for vectors of another length; this model only makes 384-d vectors.
    case unsupportedDimensions(Int)
    /// The backend asked for cannot run on this processor.
    case backendUnavailable(String)

    public var description: String {
        switch self {
        case .missingFile(let path):
            return "Missing model file \(path). Install all-MiniLM-L6-v2 (model.safetensors and vocab.txt) into that directory, or point SIBYL_MINILM_DIR at a directory that has them."
        case .invalidVocabulary(let path, let reason):
            return "The vocabulary \(path) cannot be used: \(reason). Install the model files again."
        case .invalidWeights(let error):
            return "The model weights cannot be used: \(error.description)"
        case .unexpectedShape(let tensor, let expected, let found):
            return "Tensor \(tensor) has shape \(found) where all-MiniLM-L6-v2 has \(expected): the file holds another model. Install all-MiniLM-L6-v2 again."
        case .vocabularyMismatch(let tokens, let rows):
            return "vocab.txt has \(tokens) tokens but the model embeds \(rows): the two files come from different models. Install all-MiniLM-L6-v2 again."
        case .unsupportedModel(let name):
            return "The local embedder runs all-MiniLM-L6-v2, not \(name). Leave the model unset or choose all-MiniLM-L6-v2."
        case .unsupportedDimensions(let dimensions):
            return "all-MiniLM-L6-v2 makes 384-dimensional vectors; \(dimensions) dimensions were asked for. Leave the dimensions unset."
        case .backendUnavailable(let backend):
            return "The \(backend) backend needs a processor with AVX-512, which this one lacks. Use the automatic or blas backend."
        }
    }
}

/// The description is the message, so that it survives `localizedDescription` on Linux too.
extension MiniLMError: LocalizedError {
    public var errorDescription: String? { description }
}
