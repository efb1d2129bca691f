import SibylCore
import Testing

@Suite("Sentences, whole and as text streams in")
struct SentenceSplitterTests {
    @Test("Whole text: terminators followed by space, CJK and line breaks; numbers, list markers and abbreviations stay inside")
    func wholeText() {
        #expect(SentenceSplitter.sentences(in: "Pi is 3.14 exactly. Next one!") == ["Pi is 3.14 exactly. ", "Next one!"])
        #expect(SentenceSplitter.sentences(in: "今日は晴れ。明日は雨。") == ["今日は晴れ。", "明日は雨。"])
        #expect(SentenceSplitter.sentences(in: "Ask Dr. Smith, e.g. today. Then go.") == ["Ask Dr. Smith, e.g. today. ", "Then go."])
        #expect(SentenceSplitter.sentences(in: "Steps:\n1. Open it.\n2. Close it.") == ["Steps:\n", "1. Open it.\n", "2. Close it."])
        #expect(SentenceSplitter.sentences(in: "He said \"stop.\" Then left.") == ["He said \"stop.\" ", "Then left."])
        #expect(SentenceSplitter.sentences(in: "A long sentence here. Ok.") == ["A long sentence here. Ok."], "a last piece too short to stand alone joins the one before")
        #expect(SentenceSplitter.sentences(in: "").isEmpty)
    }

    @Test("Streamed: a sentence comes as soon as it has ended, however the text is cut into pieces")
    func streamed() {
        let text = "The first one is done. The second, e.g. this, too!\nAnd the rest"
        var splitter = SentenceSplitter()
        #expect(splitter.append("The first one is ") == [])
        #expect(splitter.append("done.") == [], "a full stop might be a decimal point until the space comes")
        #expect(splitter.append(" ") == ["The first one is done. "])
        #expect(splitter.append("The second, e.g. this") == [], "an abbreviation does not end it")
        #expect(splitter.append(", too!\nAnd") == ["The second, e.g. this, too!\n"])
        #expect(splitter.append(" the rest") == [])
        #expect(splitter.finish() == "And the rest")
        #expect(splitter.finish() == nil)
        // Cut into single characters, the sentences are the whole text's.
        var byCharacter = SentenceSplitter()
        var pieces = text.flatMap { byCharacter.append(String($0)) }
        if let rest = byCharacter.finish() { pieces.append(rest) }
        #expect(pieces == ["The first one is done. ", "The second, e.g. this, too!\n", "And the rest"])
        #expect(pieces.joined() == text)
    }

    @Test("For speech, the first piece may be a clause of four words or more; the rest are sentences")
    func firstClause() {
        var splitter = SentenceSplitter(firstClauseWords: 4)
        #expect(splitter.append("Yes, ") == [], "a clause of one word is too short to speak alone")
        #expect(splitter.append("Paris is the capital, ") == ["Yes, Paris is the capital, "])
        #expect(splitter.append("and it has 2,100,000 people, more or less. It is ") == ["and it has 2,100,000 people, more or less. "], "after the first piece, only sentences")
        #expect(splitter.finish() == "It is ")
        #expect(SentenceSplitter.sentences(in: "Yes, Paris is the capital, and it is big.") == ["Yes, Paris is the capital, and it is big."], "whole text is cut into sentences only")
        // A long first phrase with no comma ends before a joining word; short ones do not.
        var long = SentenceSplitter(firstClauseWords: 4)
        let pieces = "The capital of France is a large city and it is famous. The Seine flows through it and on. ".map { long.append(String($0)) }.flatMap { $0 }
        #expect(pieces == ["The capital of France is a large city ", "and it is famous. ", "The Seine flows through it and on. "])
        var short = SentenceSplitter(firstClauseWords: 4)
        #expect(short.append("Salt and pepper are here. ") == ["Salt and pepper are here. "])
        // A preposition starts a phrase of its own too, but not inside quotes or brackets.
        var preposition = SentenceSplitter(firstClauseWords: 4)
        #expect("The Ten of Clubs is a playing card in the deck. ".map { preposition.append(String($0)) }.flatMap { $0 } == ["The Ten of Clubs is a playing card ", "in the deck. "])
        var quoted = SentenceSplitter(firstClauseWords: 4)
        #expect(quoted.append("The phrase \"he was not an ill young man in town\" is old. ") == ["The phrase \"he was not an ill young man in town\" is old. "])
        var bracketed = SentenceSplitter(firstClauseWords: 4)
        #expect(bracketed.append("Paris (the capital city of the French republic in Europe) is big. ") == ["Paris (the capital city of the French republic in Europe) is big. "])
    }
}
