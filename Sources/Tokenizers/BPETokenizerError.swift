import Foundation

/// Why a tokenizer could not be loaded, or why text could not be encoded as asked.
public enum BPETokenizerError: Error, Equatable, CustomStringConvertible {
    /// The rank file is not where it was looked for.
    case rankFileMissing(encoding: String, path: String)
    /// The rank file exists but could not be read.
    case rankFileUnreadable(path: String, reason: String)
    /// A line of the rank file is not `base64 SPACE rank`, or the ranks do not fit together.
    case malformedRankFile(path: String, line: Int, reason: String)
    /// The rank file's lines are well formed but do not make a byte-level vocabulary.
    case invalidVocabulary(path: String, reason: String)
    /// The rank file holds another number of tokens than the encoding's official file.
    case unexpectedRankCount(path: String, expected: Int, found: Int)
    /// The text holds a special token that the caller did not allow.
    case disallowedSpecialToken(String)

    public var description: String {
        switch self {
        case .rankFileMissing(let encoding, let path):
            "The \(encoding) rank file is missing at \(path). Install the tokenizer files (Sibyl's engine "
                + "installer puts them in $SIBYL_ENGINES/tokenizers) or point SIBYL_TOKENIZERS_DIR at a "
                + "directory holding \(encoding).tiktoken."
        case .rankFileUnreadable(let path, let reason):
            "The rank file \(path) could not be read: \(reason). Check its permissions, or reinstall it."
        case .malformedRankFile(let path, let line, let reason):
            "The rank file \(path) is malformed at line \(line): \(reason). Reinstall it; the official "
                + "files have one `base64 rank` pair per line."
        case .invalidVocabulary(let path, let reason):
            "The rank file \(path) is not a usable vocabulary: \(reason). Reinstall it."
        case .unexpectedRankCount(let path, let expected, let found):
            "The rank file \(path) holds \(found) tokens, but this encoding has \(expected): it is "
                + "another encoding's file or truncated. Reinstall it."
        case .disallowedSpecialToken(let token):
            "The text contains the special token \(token), which was not allowed. Pass it in "
                + "allowedSpecial to encode it as a special token, or use encode(_:) to encode it as text."
        }
    }
}

/// The description is the message, so that it survives `localizedDescription` on Linux too.
extension BPETokenizerError: LocalizedError {
    public var errorDescription: String? { description }
}
