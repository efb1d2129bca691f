/// An encoding's special tokens, for finding them in text and decoding their ids.
struct SpecialTokens: Sendable {
    struct Token: Sendable {
        let text: String
        let bytes: [UInt8]
        let id: Int
    }

    /// Longest first, so that where one token is a prefix of another the longer one wins.
    let tokens: [Token]
    let byID: [Int: String]

    init(_ tokens: [String: Int]) {
        self.tokens = tokens.map { Token(text: $0.key, bytes: Array($0.key.utf8), id: $0.value) }
            .sorted { ($0.bytes.count, $1.text) > ($1.bytes.count, $0.text) }
        byID = Dictionary(uniqueKeysWithValues: tokens.map { ($0.value, $0.key) })
    }

    /// The leftmost occurrence, at or after `from` and before `end`, of a token in `allowed`:
    /// where it starts and which token it is.
    func firstOccurrence(
        in text: UnsafePointer<UInt8>, from: Int, end: Int, allowed: [Token]
    ) -> (start: Int, token: Token)? {
        guard !allowed.isEmpty else { return nil }
        var position = from
        while position < end {
            let byte = text[position]
            for token in allowed where token.bytes[0] == byte && position + token.bytes.count <= end {
                if token.bytes.withUnsafeBufferPointer({ equal(text + position, $0) }) {
                    return (position, token)
                }
            }
            position += 1
        }
        return nil
    }

    /// The tokens, in matching order, whose text is in `names`.
    func allowed(_ names: Set<String>) -> [Token] {
        names.isEmpty ? [] : tokens.filter { names.contains($0.text) }
    }

    private func equal(_ text: UnsafePointer<UInt8>, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for index in 0..<bytes.count where text[index] != bytes[index] {
            return false
        }
        return true
    }
}
