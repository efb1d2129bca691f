import Foundation

/// A tiktoken rank file (`multilingual.tiktoken`): one `base64(bytes) rank` line per token.
enum TiktokenRanks {
    /// The token byte strings, indexed by rank.
    static func tokens(in url: URL) throws -> [Data] {
        let text = try String(contentsOf: url, encoding: .utf8)
        var ranked: [(rank: Int, bytes: Data)] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let fields = line.split(separator: " ")
            if fields.isEmpty { continue }
            guard fields.count == 2, let bytes = decodeBase64(fields[0]), let rank = Int(fields[1]) else {
                throw WhisperModelConverter.ConversionError.invalidTokenizer(line: index + 1)
            }
            ranked.append((rank, bytes))
        }
        guard !ranked.isEmpty else { throw WhisperModelConverter.ConversionError.invalidTokenizer(line: 0) }
        // The file lists tokens by rank already; sorting only guards against a reordered copy.
        if !zip(ranked, ranked.dropFirst()).allSatisfy({ $0.rank < $1.rank }) {
            ranked.sort { $0.rank < $1.rank }
        }
        return ranked.map(\.bytes)
    }

    /// Base64 with lenient padding, as Python's decoder reads it: Whisper's file has one token
    /// written as a bare "=", which stands for the empty byte string.
    static func decodeBase64(_ text: Substring) -> Data? {
        let body = text.prefix { $0 != "=" }
        guard text.dropFirst(body.count).allSatisfy({ $0 == "=" }) else { return nil }
        if body.isEmpty { return Data() }
        let padding = String(repeating: "=", count: (4 - body.count % 4) % 4)
        return Data(base64Encoded: String(body) + padding)
    }
}
