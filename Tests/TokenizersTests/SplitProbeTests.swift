import Foundation
import SibylCore
import Testing
@testable import Tokenizers

/// The pre-tokenisers' splits against tiktoken's, made visible: with the real vocabularies many
/// different splits happen to give the same tokens, so here both sides use a probe vocabulary in
/// which every string of up to three scalars from a small alphabet is a token. A piece of up to
/// three scalars then encodes to exactly one token, and any difference in where a piece starts
/// or ends changes the ids. Needs only python3 with tiktoken, not the rank files.
@Suite(.timeLimit(.minutes(10)), .enabled(if: TestEnvironment.pythonHasTiktoken, "python3 with tiktoken is not available (pip install tiktoken)"))
struct SplitProbeTests {
    /// One scalar of each class the patterns tell apart.
    static let alphabet: [String] = [
        "a", "s", "L", "E", "\u{1C5}", "\u{2B0}", "\u{4E2D}", "\u{301}", "1", "\u{663}",
        " ", "\n", "\r", "\t", "\u{A0}", "'", ".", "/", "\u{17F}", "\u{1F600}",
    ]

    /// Every string of one to three alphabet scalars, and every byte substring of each, so that
    /// byte-pair merging can build each of them; single bytes first (ranks 0 to 255).
    static func probeVocabulary() -> [[UInt8]] {
        var strings: [String] = alphabet
        for first in alphabet {
            for second in alphabet {
                strings.append(first + second)
                for third in alphabet { strings.append(first + second + third) }
            }
        }
        var seen = Set<[UInt8]>()
        var tokens: [[UInt8]] = []
        func add(_ token: [UInt8]) {
            if seen.insert(token).inserted { tokens.append(token) }
        }
        for byte in 0...255 { add([UInt8(byte)]) }
        for string in strings {
            let bytes = Array(string.utf8)
            guard bytes.count >= 2 else { continue }
            for length in 2...bytes.count {
                for start in 0...(bytes.count - length) { add(Array(bytes[start..<(start + length)])) }
            }
        }
        return tokens
    }

    @Test func splitsMatchTiktokenExactly() throws {
        let vocabulary = Self.probeVocabulary()
        var bytes: [UInt8] = []
        var offsets: [Int32] = []
        var lines: [String] = []
        for (rank, token) in vocabulary.enumerated() {
            offsets.append(Int32(bytes.count))
            bytes += token
            lines.append("\(Data(token).base64EncodedString()) \(rank)")
        }
        offsets.append(Int32(bytes.count))
        let ranksFile = FileManager.default.temporaryDirectory.appendingPathComponent("probe-\(UUID().uuidString).tiktoken")
        try (lines.joined(separator: "\n") + "\n").write(to: ranksFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: ranksFile) }

        var generator = SplitMix64(seed: 2024)
        let texts: [String] = (0..<6000).map { _ in
            let length = Int.random(in: 1...24, using: &generator)
            var text = (0..<length).map { _ in Self.alphabet.randomElement(using: &generator)! }.joined()
            // Some special tokens, to check splitting around them too.
            if Int.random(in: 0..<8, using: &generator) == 0 {
                let cut = text.index(text.startIndex, offsetBy: Int.random(in: 0...text.count, using: &generator))
                text.insert(contentsOf: "<|endoftext|>", at: cut)
            }
            return text
        }
        let reference = try TiktokenReference.ids(for: texts, arguments: ["--ranks", ranksFile.path])
        let table = try RankTable(bytes: bytes, offsets: offsets)
        for encoding in BPETokenizer.Encoding.allCases {
            try reference.expectMatches(texts, tokenizer: BPETokenizer(encoding: encoding, ranks: table))
        }
    }
}
