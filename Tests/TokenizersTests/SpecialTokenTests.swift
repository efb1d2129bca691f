import Testing
import Tokenizers

/// Special tokens: encoded as text unless allowed, found anywhere in the text when allowed,
/// refused by `encodeChecked` when not allowed, and decoded back to their text.
@Suite(
    .timeLimit(.minutes(10)), .enabled(if: TestEnvironment.runsRankFileTests, TestEnvironment.rankFilesMissing)
)
struct SpecialTokenTests {
    @Test(arguments: BPETokenizer.Encoding.allCases)
    func specialTokensAreTextUnlessAllowed(_ encoding: BPETokenizer.Encoding) throws {
        let tokenizer = try TestEnvironment.tokenizer(encoding)
        let endOfText = try #require(tokenizer.specialTokens["<|endoftext|>"])
        let text = "Hello<|endoftext|>World"
        let asText = tokenizer.encode(text)
        #expect(!asText.contains(endOfText))
        #expect(asText == tokenizer.encodeOrdinary(text))
        #expect(tokenizer.count(text) == asText.count)

        let allowed = tokenizer.encode(text, allowedSpecial: ["<|endoftext|>"])
        #expect(allowed == tokenizer.encode("Hello") + [endOfText] + tokenizer.encode("World"))
        // Allowing another special token does not change how this one is treated.
        #expect(tokenizer.encode(text, allowedSpecial: ["<|endofprompt|>"]) == asText)
        #expect(tokenizer.decode(allowed) == text)
        #expect(tokenizer.decode(asText) == text)
    }

    @Test(arguments: BPETokenizer.Encoding.allCases)
    func textAroundSpecialTokensIsSplitOnItsOwn(_ encoding: BPETokenizer.Encoding) throws {
        let tokenizer = try TestEnvironment.tokenizer(encoding)
        let all = Set(tokenizer.specialTokens.keys)
        let endOfText = try #require(tokenizer.specialTokens["<|endoftext|>"])
        let endOfPrompt = try #require(tokenizer.specialTokens["<|endofprompt|>"])
        // Whitespace before a special token is at the end of its segment, which `\s++$` and
        // `(?!\S)` see as the end of the text.
        let text = "a  \n <|endoftext|><|endofprompt|>  b<|endoftext|>"
        let expected = tokenizer.encode("a  \n ") + [endOfText, endOfPrompt] + tokenizer.encode("  b") + [endOfText]
        #expect(tokenizer.encode(text, allowedSpecial: all) == expected)
        #expect(tokenizer.encode("<|endoftext|>", allowedSpecial: all) == [endOfText])
        #expect(tokenizer.encode("<|endoftext", allowedSpecial: all) == tokenizer.encode("<|endoftext"))
    }

    @Test(arguments: BPETokenizer.Encoding.allCases)
    func checkedEncodingRefusesDisallowedSpecialTokens(_ encoding: BPETokenizer.Encoding) throws {
        let tokenizer = try TestEnvironment.tokenizer(encoding)
        #expect(throws: BPETokenizerError.disallowedSpecialToken("<|endoftext|>")) {
            try tokenizer.encodeChecked("before <|endoftext|> after")
        }
        #expect(throws: BPETokenizerError.disallowedSpecialToken("<|endofprompt|>")) {
            try tokenizer.encodeChecked("x<|endofprompt|>", allowedSpecial: ["<|endoftext|>"])
        }
        let allowed = try tokenizer.encodeChecked("x<|endoftext|>", allowedSpecial: ["<|endoftext|>"])
        #expect(allowed == tokenizer.encode("x") + [tokenizer.specialTokens["<|endoftext|>"]!])
        #expect(try tokenizer.encodeChecked("plain text") == tokenizer.encode("plain text"))
    }

    @Test func specialTokenIDsMatchTiktoken() throws {
        let cl100k = try TestEnvironment.tokenizer(.cl100kBase)
        #expect(cl100k.specialTokens == [
            "<|endoftext|>": 100_257, "<|fim_prefix|>": 100_258, "<|fim_middle|>": 100_259,
            "<|fim_suffix|>": 100_260, "<|endofprompt|>": 100_276,
        ])
        let o200k = try TestEnvironment.tokenizer(.o200kBase)
        #expect(o200k.specialTokens == ["<|endoftext|>": 199_999, "<|endofprompt|>": 200_018])
        #expect(o200k.bytes(ofToken: 200_018) == Array("<|endofprompt|>".utf8))
        #expect(o200k.decode([13225, 199_999]) == "Hello<|endoftext|>")
    }
}
