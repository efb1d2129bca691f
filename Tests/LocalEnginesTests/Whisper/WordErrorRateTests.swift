import TestFixtures
import Testing

@Suite("Word error rate", .timeLimit(.minutes(10)))
struct WordErrorRateTests {
    @Test("Case, punctuation, hyphens and abbreviations do not count as errors")
    func normalisation() {
        #expect(WordErrorRate.normalizedWords("And Mr. John's ill-disposed, cold–hearted friend!") == ["and", "mister", "johns", "ill", "disposed", "cold", "hearted", "friend"])
        #expect(WordErrorRate.normalizedWords("8 of spades, 10 of clubs, 21") == ["eight", "of", "spades", "ten", "of", "clubs", "21"])
        #expect(WordErrorRate(reference: "he was not an ill disposed young man", hypothesis: " He was not an ill-disposed young man.").errors == 0)
    }

    @Test("Substitutions, deletions and insertions each count once")
    func counting() {
        #expect(WordErrorRate(reference: "a b c d", hypothesis: "a x c d").errors == 1)
        #expect(WordErrorRate(reference: "a b c d", hypothesis: "a c d").errors == 1)
        #expect(WordErrorRate(reference: "a b c d", hypothesis: "a b b c d e").errors == 2)
        #expect(WordErrorRate(reference: "a b c d", hypothesis: "").errors == 4)
        #expect(WordErrorRate(reference: "had he married a more a amiable woman", hypothesis: "Had he married a more amiable woman,").rate == 0.125)
    }

    @Test("Rates add up over clips")
    func sum() {
        let total = WordErrorRate(errors: 1, referenceWords: 10) + WordErrorRate(errors: 0, referenceWords: 30)
        #expect(total.rate == 0.025)
    }
}
