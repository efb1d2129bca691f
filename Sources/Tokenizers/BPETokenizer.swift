public import Foundation
public import SibylCore

/// OpenAI's byte-level BPE tokenizer (tiktoken's cl100k_base and o200k_base), in pure Swift,
/// producing exactly tiktoken's token ids.
///
/// Load it once and share it: it is immutable and safe to use from any thread.
public final class BPETokenizer: TokenCounter, Sendable {
    /// The encoding this tokenizer implements.
    public let encoding: Encoding
    /// The special tokens (`<|endoftext|>` …) and their ids.
    public let specialTokens: [String: Int]

    let ranks: RankTable
    let specials: SpecialTokens
    let flags: FlagTable

    init(encoding: Encoding, ranks: RankTable) {
        self.encoding = encoding
        self.ranks = ranks
        specialTokens = encoding.specialTokens
        specials = SpecialTokens(encoding.specialTokens)
        flags = UnicodeClasses.table
    }

    /// Loads `encoding` from its rank file (`cl100k_base.tiktoken`, …) in `directory`, by default
    /// where Sibyl's engine installer puts it (see `defaultDirectory(environment:)`).
    public static func load(
        encoding: Encoding, directory: URL = defaultDirectory()
    ) throws(BPETokenizerError) -> BPETokenizer {
        try load(encoding: encoding, rankFile: directory.appendingPathComponent(encoding.fileName))
    }

    /// Loads `encoding` from the rank file at `rankFile`.
    public static func load(encoding: Encoding, rankFile: URL) throws(BPETokenizerError) -> BPETokenizer {
        guard FileManager.default.fileExists(atPath: rankFile.path) else {
            throw .rankFileMissing(encoding: encoding.name, path: rankFile.path)
        }
        let (bytes, offsets) = try RankFile.read(rankFile)
        guard offsets.count - 1 == encoding.rankCount else {
            throw .unexpectedRankCount(path: rankFile.path, expected: encoding.rankCount, found: offsets.count - 1)
        }
        do {
            return BPETokenizer(encoding: encoding, ranks: try RankTable(bytes: bytes, offsets: offsets))
        } catch {
            let reason: String
            switch error {
            case .emptyToken(let rank): reason = "token \(rank) is empty"
            case .duplicateToken(let rank, let first): reason = "token \(rank) repeats token \(first)"
            case .missingByte(let byte): reason = "no token for the single byte \(byte)"
            }
            throw .invalidVocabulary(path: rankFile.path, reason: reason)
        }
    }

    /// Where the rank files are looked for: `SIBYL_TOKENIZERS_DIR`, else `$SIBYL_ENGINES/tokenizers`,
    /// else `~/.cache/sibyl/engines/tokenizers` (where Sibyl's engine installer puts them).
    public static func defaultDirectory(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> URL {
        if let directory = environment["SIBYL_TOKENIZERS_DIR"], !directory.isEmpty {
            return URL(fileURLWithPath: directory, isDirectory: true)
        }
        if let engines = environment["SIBYL_ENGINES"], !engines.isEmpty {
            return URL(fileURLWithPath: engines, isDirectory: true).appendingPathComponent("tokenizers")
        }
        let home = environment["HOME"].map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.homeDirectoryForCurrentUser
        return home.appendingPathComponent(".cache/sibyl/engines/tokenizers")
    }

    // MARK: Encoding

    /// The token ids of `text`, where the special tokens named in `allowedSpecial` become their
    /// special ids and all other text, special-looking or not, is encoded as ordinary text.
    ///
    /// Like tiktoken's `encode(text, allowed_special=…, disallowed_special=())`.
    public func encode(_ text: String, allowedSpecial: Set<String> = []) -> [Int] {
        var collector = TokenCollector()
        withBytes(of: text) { bytes in
            // English averages over four bytes a token; reserving a quarter avoids most regrowth.
            collector.tokens.reserveCapacity(bytes.end / 4 + 8)
            encode(bytes, allowed: specials.allowed(allowedSpecial), into: &collector)
        }
        return collector.tokens
    }

    /// Like `encode(_:allowedSpecial:)`, but throws when the text holds a special token that is
    /// not allowed, as tiktoken's `encode` does by default: text from users that contains
    /// `<|endoftext|>` is then caught rather than silently encoded either way.
    public func encodeChecked(_ text: String, allowedSpecial: Set<String> = []) throws(BPETokenizerError) -> [Int] {
        let disallowed = specials.tokens.filter { !allowedSpecial.contains($0.text) }
        let found: String? = withBytes(of: text) { buffer in
            specials.firstOccurrence(in: buffer.base, from: 0, end: buffer.end, allowed: disallowed)?.token.text
        }
        if let found { throw .disallowedSpecialToken(found) }
        return encode(text, allowedSpecial: allowedSpecial)
    }

    /// The token ids of `text`, all of it encoded as ordinary text (special tokens included).
    public func encodeOrdinary(_ text: String) -> [Int] {
        encode(text)
    }

    /// How many tokens `text` encodes to, all of it as ordinary text; faster than encoding.
    public func count(_ text: String) -> Int {
        var counter = TokenCounting()
        withBytes(of: text) { encode($0, allowed: [], into: &counter) }
        return counter.count
    }

    /// Always true: counts are tiktoken's, not estimates.
    public var isExact: Bool { true }

    // MARK: Decoding

    /// The bytes that `tokens` stand for; ids that are neither ordinary nor special are skipped.
    public func decodeBytes(_ tokens: [Int]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(tokens.count * 4)
        for token in tokens {
            if let tokenBytes = ranks.bytes(of: token) {
                bytes.append(contentsOf: tokenBytes)
            } else if let special = specials.byID[token] {
                bytes.append(contentsOf: special.utf8)
            }
        }
        return bytes
    }

    /// The text that `tokens` stand for; bytes that are not valid UTF-8 (a token sequence cut in
    /// the middle of a character) become U+FFFD, as with tiktoken's `decode`.
    public func decode(_ tokens: [Int]) -> String {
        String(decoding: decodeBytes(tokens), as: UTF8.self)
    }

    /// The bytes of a single token, or nil for an unknown id.
    public func bytes(ofToken token: Int) -> [UInt8]? {
        if let tokenBytes = ranks.bytes(of: token) { return Array(tokenBytes) }
        return specials.byID[token].map { Array($0.utf8) }
    }
}
