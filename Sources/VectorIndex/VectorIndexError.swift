import Foundation

/// What went wrong adding to, or loading, a vector index.
public enum VectorIndexError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A vector's length differs from the index's dimension.
    case dimensionMismatch(expected: Int, actual: Int)
    /// A vector holds NaN or an infinity.
    case nonFiniteVector(id: Int64)
    /// Different numbers of ids and vectors were passed.
    case countMismatch(ids: Int, vectors: Int)
    /// A parameter is out of range.
    case invalidParameter(String)
    /// The data does not start like a serialised index of this kind.
    case notAnIndex(expected: String)
    /// The data was written by a format version this build cannot read.
    case unsupportedVersion(found: UInt32, supported: UInt32)
    /// The data ends before the index does.
    case truncated(expectedBytes: Int, actualBytes: Int)
    /// The checksum over the data does not match the one stored with it.
    case checksumMismatch(stored: UInt64, computed: UInt64)
    /// The data passes the checksum but describes an impossible index.
    case corrupt(String)

    /// What went wrong and what the user can do about it.
    public var description: String {
        switch self {
        case .dimensionMismatch(let expected, let actual):
            return "vector has \(actual) components but the index holds \(expected)-dimensional vectors; embed with the model the index was built with, or rebuild the index"
        case .nonFiniteVector(let id):
            return "vector \(id) contains NaN or infinity; re-embed its text"
        case .countMismatch(let ids, let vectors):
            return "\(ids) ids but \(vectors) vectors were given; pass one id per vector"
        case .invalidParameter(let message):
            return "invalid index parameter: \(message)"
        case .notAnIndex(let expected):
            return "the data is not a serialised \(expected); rebuild the index from the stored vectors"
        case .unsupportedVersion(let found, let supported):
            return "the index was saved in format version \(found), but this build reads version \(supported); rebuild the index from the stored vectors"
        case .truncated(let expected, let actual):
            return "the serialised index is truncated (\(actual) of \(expected) bytes); rebuild the index from the stored vectors"
        case .checksumMismatch(let stored, let computed):
            return "the serialised index is corrupted (checksum \(String(computed, radix: 16)) ≠ stored \(String(stored, radix: 16))); rebuild the index from the stored vectors"
        case .corrupt(let message):
            return "the serialised index is corrupted (\(message)); rebuild the index from the stored vectors"
        }
    }
}

/// The description is the message, so that it survives `localizedDescription` on Linux too.
extension VectorIndexError: LocalizedError {
    public var errorDescription: String? { description }
}
