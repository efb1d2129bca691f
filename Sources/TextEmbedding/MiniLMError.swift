import Foundation

/// Why the in-process sentence embedder could not load its model or answer a request.
public enum MiniLMError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A file the model needs is not there.
    case missingFile(path: String, model: String = SentenceModel.miniLM.name, variable: String = SentenceModel.miniLM.directoryVariable)
    /// `vocab.txt` is unreadable or lacks a required token.
    case invalidVocabulary(path: String, reason: String)
    /// `model.safetensors` is unreadable or corrupt.
    case invalidWeights(SafeTensorsError)
    /// A tensor has the wrong shape for the model.
    case unexpectedShape(tensor: String, expected: [Int], found: [Int], model: String)
    /// The vocabulary and the embedding matrix disagree on the number of tokens.
    case vocabularyMismatch(vocabularyTokens: Int, embeddingRows: Int, model: String)
    /// The request names a different embedding model.
    case unsupportedModel(String, runs: String)
    /// The request asks for vectors of another length than the model makes.
    case unsupportedDimensions(Int, model: String, makes: Int)
    /// The backend asked for cannot run on this processor.
    case backendUnavailable(String)

    public var description: String {
        switch self {
        case .missingFile(let path, let model, let variable):
            return "Missing model file \(path). Install \(model) (model.safetensors and vocab.txt) into that directory, or point \(variable) at a directory that has them."
        case .invalidVocabulary(let path, let reason):
            return "The vocabulary \(path) cannot be used: \(reason). Install the model files again."
        case .invalidWeights(let error):
            return "The model weights cannot be used: \(error.description)"
        case .unexpectedShape(let tensor, let expected, let found, let model):
            return "Tensor \(tensor) has shape \(found) where \(model) has \(expected): the file holds another model. Install \(model) again."
        case .vocabularyMismatch(let tokens, let rows, let model):
            return "vocab.txt has \(tokens) tokens but the model embeds \(rows): the two files come from different models. Install \(model) again."
        case .unsupportedModel(let name, let runs):
            return "This local embedder runs \(runs), not \(name). Leave the model unset or choose \(runs)."
        case .unsupportedDimensions(let dimensions, let model, let makes):
            return "\(model) makes \(makes)-dimensional vectors; \(dimensions) dimensions were asked for. Leave the dimensions unset."
        case .backendUnavailable(let backend):
            return "The \(backend) backend needs a processor with AVX-512, which this one lacks. Use the automatic or blas backend."
        }
    }
}

/// The description is the message, so that it survives `localizedDescription` on Linux too.
extension MiniLMError: LocalizedError {
    public var errorDescription: String? { description }
}
