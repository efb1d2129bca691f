import Foundation

/// Why a safetensors file could not be read.
public enum SafeTensorsError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No file at that path.
    case fileNotFound(path: String)
    /// The file exists but could not be opened or mapped.
    case unreadable(path: String, reason: String)
    /// The file ends before the header or the tensor data it announces.
    case truncated(path: String, reason: String)
    /// The JSON header is missing, malformed, or describes impossible tensors.
    case invalidHeader(path: String, reason: String)
    /// The file has no tensor of that name.
    case missingTensor(name: String)
    /// The tensor's element type is not the one asked for (or not one this reader knows).
    case unsupportedDType(tensor: String, dtype: String)

    public var description: String {
        switch self {
        case .fileNotFound(let path):
            return "No safetensors file at \(path). Install the model files again."
        case .unreadable(let path, let reason):
            return "Could not read \(path): \(reason). Check the file's permissions."
        case .truncated(let path, let reason):
            return "\(path) is truncated (\(reason)). The download was probably cut short: install the model files again."
        case .invalidHeader(let path, let reason):
            return "\(path) is not a valid safetensors file: \(reason). Install the model files again."
        case .missingTensor(let name):
            return "The model file has no tensor named \(name): it is not the model this embedder expects."
        case .unsupportedDType(let tensor, let dtype):
            return "Tensor \(tensor) has element type \(dtype), which this reader cannot use here."
        }
    }
}

/// The description is the message, so that it survives `localizedDescription` on Linux too.
extension SafeTensorsError: LocalizedError {
    public var errorDescription: String? { description }
}
