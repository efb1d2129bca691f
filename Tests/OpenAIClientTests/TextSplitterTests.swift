import Testing
@testable import OpenAIClient

@Suite("Splitting text for speech", .timeLimit(.minutes(10)))
struct TextSplitterTests {
    @Test func shortTextIsOnePiece() {
        #expect(TextSplitter.split("Hello there.", limit: 100) == ["Hello there."])
    }

    @Test func splitsAtSentenceBoundaries() {
        let text = "One two three. Four five six! Seven eight nine?"
        let pieces = TextSplitter.split(text, limit: 20)
        #expect(pieces == ["One two three.", "Four five six!", "Seven eight nine?"])
    }

    @Test func decimalsAndAbbreviationsInsideWordsStayWhole() {
        #expect(TextSplitter.sentences(in: "Pi is 3.14 today. Yes.") == ["Pi is 3.14 today. ", "Yes."])
    }

    @Test func japaneseSentencesSplitWithoutSpaces() {
        #expect(TextSplitter.sentences(in: "今日は。明日も。") == ["今日は。", "明日も。"])
    }

    @Test func everyPieceRespectsTheLimitAndNothingIsLost() {
        let sentence = "This sentence has exactly some words in it and goes on. "
        let text = String(repeating: sentence, count: 200) + String(repeating: "x", count: 5000)
        let pieces = TextSplitter.split(text, limit: 4096)
        #expect(pieces.allSatisfy { $0.count <= 4096 })
        #expect(pieces.count >= 4)
        let rejoined = pieces.joined().filter { !$0.isWhitespace }
        #expect(rejoined == text.filter { !$0.isWhitespace })
    }
}
