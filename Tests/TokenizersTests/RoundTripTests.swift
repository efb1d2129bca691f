import SibylCore
import Testing
@testable import Tokenizers

/// decode(encode(x)) == x for all kinds of text, and the two merge strategies agree.
@Suite(
    .timeLimit(.minutes(10)), .enabled(if: TestEnvironment.runsRankFileTests, TestEnvironment.rankFilesMissing)
)
struct RoundTripTests {
    static let samples: [String] = [
        "",
        "a",
        "Emoji 😀🚀 👨‍👩‍👧‍👦 🇫🇷 👍🏽 ❤️ and more",
        "中文文本、日本語のテキスト、한국어 텍스트",
        "Combining: e\u{301} a\u{308}\u{304} \u{915}\u{94D}\u{937} Z\u{335}\u{31B}\u{35D}a\u{336}l\u{334}g\u{337}o\u{338}",
        "Controls: \u{0}\u{1}\u{7}\u{8}\u{1B}[0m\u{7F}\u{85}\u{9F}",
        String(repeating: " ", count: 1000),
        String(repeating: "\t \n\r\n", count: 200),
        "Numbers 0 12 345 6789 3.14159 -2.5e-10 1,234,567 ٣٤٥ Ⅻ ½ ²",
        "Private use \u{E000}\u{F8FF} and noncharacters \u{FFFE}\u{FFFF}\u{10FFFF} and BOM \u{FEFF}",
        String(repeating: "abc", count: 2000),
        String(repeating: "\u{1F600}", count: 500),
    ] + VariedText.prose + VariedText.longRuns

    @Test(arguments: BPETokenizer.Encoding.allCases)
    func decodeInvertsEncode(_ encoding: BPETokenizer.Encoding) throws {
        let tokenizer = try TestEnvironment.tokenizer(encoding)
        let texts = Self.samples
            + VariedText.fragmentTexts(count: 500, maxFragments: 30, seed: 11)
            + VariedText.randomScalarTexts(count: 500, maxLength: 60, seed: 12)
        for text in texts {
            let tokens = tokenizer.encode(text)
            #expect(tokenizer.decode(tokens) == text, "\(text.debugDescription.prefix(80))")
            #expect(tokenizer.decodeBytes(tokens) == Array(text.utf8))
            #expect(tokenizer.count(text) == tokens.count)
        }
    }

    @Test(arguments: BPETokenizer.Encoding.allCases)
    func decodingPartOfACharacterGivesReplacementCharacters(_ encoding: BPETokenizer.Encoding) throws {
        let tokenizer = try TestEnvironment.tokenizer(encoding)
        // A rare CJK character is split across byte-level tokens; decoding only the first is invalid UTF-8.
        let tokens = tokenizer.encode("\u{2A6D6}")
        try #require(tokens.count > 1)
        #expect(tokenizer.decode([tokens[0]]).contains("\u{FFFD}"))
        #expect(tokenizer.decode([-1, 10_000_000]) == "")
        #expect(tokenizer.bytes(ofToken: -1) == nil)
    }

    /// One tokenizer shared by many tasks at once gives every one of them the same answer.
    @Test func sharedAcrossConcurrentTasks() async throws {
        let tokenizer = try TestEnvironment.tokenizer(.o200kBase)
        let text = VariedText.prose.joined(separator: "\n")
        let expected = tokenizer.encode(text)
        let results = await withTaskGroup(of: [Int].self) { group in
            for _ in 0..<8 {
                group.addTask { tokenizer.encode(text) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 8)
        #expect(results.allSatisfy { $0 == expected })
    }

    /// The heap merge, used for long pieces, gives exactly what the scan merge gives.
    @Test(arguments: BPETokenizer.Encoding.allCases)
    func heapAndScanMergesAgree(_ encoding: BPETokenizer.Encoding) throws {
        let tokenizer = try TestEnvironment.tokenizer(encoding)
        var generator = SplitMix64(seed: 99)
        let alphabets: [[UInt8]] = [Array("abcdefghijklmnopqrstuvwxyz".utf8), Array("ab".utf8), Array("e\u{301}中".utf8)]
        for round in 0..<60 {
            let alphabet = alphabets[round % alphabets.count]
            let length = Int.random(in: 2...BytePairMerge.heapThreshold, using: &generator)
            let bytes = (0..<length).map { _ in alphabet.randomElement(using: &generator)! }
            let padded = bytes + [UInt8](repeating: 0, count: 8)
            padded.withUnsafeBufferPointer { buffer in
                let merge = BytePairMerge(ranks: tokenizer.ranks, limit: buffer.baseAddress! + buffer.count)
                var scanned = TokenCollector()
                merge.encode(buffer.baseAddress!, length, into: &scanned)
                var heaped = TokenCollector()
                merge.encodeWithHeap(buffer.baseAddress!, length, into: &heaped)
                #expect(scanned.tokens == heaped.tokens, "round \(round)")
                #expect(tokenizer.decodeBytes(heaped.tokens) == bytes)
            }
        }
    }
}
