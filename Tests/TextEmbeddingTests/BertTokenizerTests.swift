import Foundation
import Testing
import TextEmbedding

/// The tokenizer's rules on a small vocabulary, so that expected ids are easy to read.
@Suite(.timeLimit(.minutes(10)))
struct BertTokenizerTests {
    static let tokens = [
        "[PAD]", "[UNK]", "[CLS]", "[SEP]", "cafe", "naive", "resume", "hello", "world", ",", "!",
        ".", "'", "don", "t", "play", "##ing", "##s", "東", "京", "は", "un", "##aff", "##able",
        "a", "b", "ab", "$", "5", "-", "e", "σ", "ς", "##ed", "日", "本", "d", "i", "ǆ", "##b",
    ]
    let tokenizer = try! BertTokenizer(vocabulary: WordPieceVocabulary(tokens: tokens))

    private func ids(_ words: String...) -> [Int32] {
        words.map { word in Int32(Self.tokens.firstIndex(of: word)!) }
    }

    @Test func wrapsInClassifierAndSeparator() {
        #expect(tokenizer.encode("hello world") == ids("[CLS]", "hello", "world", "[SEP]"))
        #expect(tokenizer.encode("") == ids("[CLS]", "[SEP]"))
        #expect(tokenizer.encode(" \t\n ") == ids("[CLS]", "[SEP]"))
    }

    @Test func lowercasesAndStripsAccents() {
        #expect(tokenizer.pieces("CAFÉ Naïve RÉSUMÉ") == ids("cafe", "naive", "resume"))
        // Decomposed input (e + combining acute) gives the same.
        #expect(tokenizer.pieces("cafe\u{301}") == ids("cafe"))
        // Lowercasing maps each character on its own: Σ becomes σ even at the end of a word.
        #expect(tokenizer.pieces("Σ σ ς") == ids("σ", "σ", "ς"))
        // Compatibility characters are not decomposed (NFD, not NFKD), only lowercased.
        #expect(tokenizer.pieces("Ǆ") == ids("ǆ"))
    }

    @Test func splitsPunctuationIntoWordsOfTheirOwn() {
        #expect(tokenizer.pieces("hello,world!") == ids("hello", ",", "world", "!"))
        #expect(tokenizer.pieces("don't") == ids("don", "'", "t"))
        // ASCII symbols count as punctuation, as in BERT.
        #expect(tokenizer.pieces("$5") == ids("$", "5"))
        // Unicode punctuation too: the en dash (Pd) splits, so "a–b" is three words.
        #expect(tokenizer.pieces("a\u{2013}b") == ids("a", "[UNK]", "b"))
    }

    @Test func isolatesCJKIdeographsButNotKana() {
        #expect(tokenizer.pieces("東京は日本") == ids("東", "京", "は", "日", "本"))
        #expect(tokenizer.pieces("ab東b") == ids("ab", "東", "b"))
    }

    @Test func splitsWordsByGreedyLongestMatch() {
        #expect(tokenizer.pieces("playing plays") == ids("play", "##ing", "play", "##s"))
        #expect(tokenizer.pieces("unaffable") == ids("un", "##aff", "##able"))
        #expect(tokenizer.pieces("abb") == ids("ab", "##b"))
    }

    @Test func unknownWordsBecomeOneUnknownToken() {
        #expect(tokenizer.pieces("hello xyz world") == ids("hello", "[UNK]", "world"))
        // A word that splits only partly is unknown as a whole.
        #expect(tokenizer.pieces("playx") == ids("[UNK]"))
        // More than 100 characters: unknown without trying.
        #expect(tokenizer.pieces(String(repeating: "a", count: 101)) == ids("[UNK]"))
        #expect(tokenizer.pieces("🙂") == ids("[UNK]"))
    }

    @Test func removesControlCharactersAndUnifiesWhitespace() {
        // Vertical tab and form feed are control characters: removed, joining their neighbours.
        #expect(tokenizer.pieces("a\u{0B}b") == ids("ab"))
        // Zero-width space (Cf) too; no-break and ideographic spaces separate words.
        #expect(tokenizer.pieces("a\u{200B}b a\u{00A0}b a\u{3000}b") == ids("ab", "a", "b", "a", "b"))
        #expect(tokenizer.pieces("hello\tworld\r\nhello\u{0}") == ids("hello", "world", "hello"))
        #expect(tokenizer.pieces("\u{FFFD}hello") == ids("hello"))
    }

    @Test func classifiesCharactersWithTheReferencesUnicodeTables() {
        // Unassigned code points are kept (and so make the word unknown), not removed.
        #expect(tokenizer.pieces("a\u{378}b") == ids("[UNK]"))
        // The reference's CJK ranges skip U+2B820–U+2B91F.
        #expect(tokenizer.pieces("a\u{2B820}b") == ids("[UNK]"))
        #expect(tokenizer.pieces("a\u{2B920}b") == ids("a", "[UNK]", "b"))
        // U+166D was punctuation in the reference's Unicode version (a symbol today) …
        #expect(tokenizer.pieces("a\u{166D}b") == ids("a", "[UNK]", "b"))
        // … and U+1734 a nonspacing mark (a spacing one today).
        #expect(tokenizer.pieces("a\u{1734}b") == ids("ab"))
        // A format character added after that version is kept.
        #expect(tokenizer.pieces("a\u{890}b") == ids("[UNK]"))
    }

    @Test func truncatesToTheLimitIncludingSpecialTokens() {
        let long = String(repeating: "hello world ", count: 500)
        let encoded = tokenizer.encode(long, maxLength: 256)
        #expect(encoded.count == 256)
        #expect(encoded.first == 2 && encoded.last == 3)
        #expect(tokenizer.encode(long, maxLength: 5) == ids("[CLS]", "hello", "world", "hello", "[SEP]"))
        // Truncation may cut a word between its pieces, as the reference does.
        #expect(tokenizer.encode("unaffable", maxLength: 4) == ids("[CLS]", "un", "##aff", "[SEP]"))
    }

    @Test func countsPiecesWithoutSpecialTokensOrTruncation() {
        #expect(tokenizer.count("hello world!") == 3)
        #expect(tokenizer.count(String(repeating: "hello ", count: 300)) == 300)
        #expect(tokenizer.isExact)
    }

    @Test func vocabularyLookups() throws {
        let vocabulary = WordPieceVocabulary(tokens: ["a", "##b", "a"])
        // A repeated token keeps its last id, as the reference's dictionary does.
        #expect(vocabulary.id(of: "a") == 2)
        #expect(vocabulary.id(of: "##b") == 1)
        #expect(vocabulary.id(of: "b") == nil)
        #expect(throws: MiniLMError.self) { try BertTokenizer(vocabulary: vocabulary) }
    }

    @Test func readsVocabularyFilesWithEitherLineEnding() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("vocab.txt")
        try "[PAD]\r\n[UNK]\r\n[CLS]\r\n[SEP]\r\nhello\r\n".write(to: url, atomically: true, encoding: .utf8)
        let tokenizer = try BertTokenizer(vocabulary: WordPieceVocabulary(contentsOf: url))
        #expect(tokenizer.encode("Hello") == [2, 4, 3])
        #expect(throws: MiniLMError.missingFile(path: directory.appendingPathComponent("none.txt").path)) {
            try WordPieceVocabulary(contentsOf: directory.appendingPathComponent("none.txt"))
        }
    }
}
