import Foundation
import SibylCore
import Synchronization
import Testing
@testable import Assistant

/// An embedder whose vectors the test chooses (by text, or by a rule), keeping what it was asked.
final class ChosenVectorsEmbedder: Embedder {
    private let vector: @Sendable (String) -> [Float]
    private let dropOne: Bool
    private let asked = Mutex<[[String]]>([])

    init(dropOne: Bool = false, _ vector: @escaping @Sendable (String) -> [Float]) {
        self.vector = vector
        self.dropOne = dropOne
    }

    /// Each call's texts, in order.
    var calls: [[String]] { asked.withLock { $0 } }

    func embed(_ texts: [String], options: EmbeddingOptions) async throws -> EmbeddingResult {
        asked.withLock { $0.append(texts) }
        let vectors = texts.map(vector)
        return EmbeddingResult(vectors: dropOne ? Array(vectors.dropLast()) : vectors, model: "chosen", promptTokens: nil)
    }
}

@Suite("Memory recall", .timeLimit(.minutes(10)))
struct MemoryRecallTests {
    /// A general question and one the asker asks about themselves.
    static let general = "Which wine goes with grilled fish?"
    static let personal = "What should I cook for my dinner tonight?"

    static func scored(_ scores: [Double]) -> [RememberedFact] {
        scores.enumerated().map { RememberedFact(fact: MemoryFact(text: "The user fact \($0.offset).", status: .accepted), score: $0.element) }
    }

    @Test func nothingScoredRecallsNothing() {
        #expect(MemoryRecall.select([], for: Self.general).isEmpty)
        #expect(MemoryRecall.select([], for: Self.personal).isEmpty)
    }

    @Test func atMostThreeFactsAreRecalled() {
        let scored = Self.scored([0.90, 0.89, 0.88, 0.87, 0.86])
        #expect(MemoryRecall.select(scored, for: Self.general) == Array(scored.prefix(MemoryRecall.limit)))
        #expect(MemoryRecall.limit == 3)
    }

    @Test func aGeneralQuestionNeedsTheThreshold() {
        #expect(MemoryRecall.select(Self.scored([0.34, 0.33]), for: Self.general).isEmpty)
        let scored = Self.scored([0.36, 0.34])
        #expect(MemoryRecall.select(scored, for: Self.general) == [scored[0]], "a fact within the margin but under the threshold stays out")
    }

    @Test func aQuestionAboutTheAskerNeedsOnlyThePersonalThreshold() {
        let scored = Self.scored([0.19, 0.17, 0.10])
        #expect(MemoryRecall.select(scored, for: Self.general).isEmpty)
        #expect(MemoryRecall.select(scored, for: Self.personal) == Array(scored.prefix(2)), "the margin still applies")
        #expect(MemoryRecall.select(Self.scored([0.06]), for: "Is this safe for me?").count == 1)
        #expect(MemoryRecall.select(Self.scored([0.04]), for: "Is this safe for me?").isEmpty)
    }

    @Test func onlyFactsWithinTheMarginOfTheBestComeAlong() {
        let scored = Self.scored([0.80, 0.77, 0.75, 0.70])
        #expect(MemoryRecall.select(scored, for: Self.general) == Array(scored.prefix(2)))
        #expect(MemoryRecall.select(scored, for: Self.personal) == Array(scored.prefix(2)))
    }

    @Test func askingHowAThingIsDoneIsNotAboutTheAsker() {
        for question in ["How do I sort a list in Python?", "how can I reverse a string", "How should I  boil an egg?"] {
            #expect(!MemoryRecall.asksAboutThemselves(question), "\(question)")
            #expect(MemoryRecall.select(Self.scored([0.2]), for: question).isEmpty, "\(question)")
        }
        for question in ["How do I get to my office from here?", "What should I cook?", "Is peanut butter safe for me?", "Give me a tip for the language I'm learning."] {
            #expect(MemoryRecall.asksAboutThemselves(question), "\(question)")
            #expect(MemoryRecall.select(Self.scored([0.2]), for: question).count == 1, "\(question)")
        }
        for question in ["What is the capital of Peru?", "Write a haiku about the sea."] {
            #expect(!MemoryRecall.asksAboutThemselves(question), "\(question)")
        }
    }

    /// Unit vectors whose cosine with the question's (1, 0) is the given score.
    static func vector(cosine: Float) -> [Float] { [cosine, (1 - cosine * cosine).squareRoot()] }

    static let facts = [
        MemoryFact(text: "The user is allergic to peanuts.", status: .accepted),
        MemoryFact(text: "The user lives in Lyon.", status: .accepted),
        MemoryFact(text: "The user has a border collie.", status: .accepted),
    ]

    /// Cosines 0.62, 0.10 and 0.60 for `facts`; every other text is a question.
    static func embedder() -> ChosenVectorsEmbedder {
        let chosen = Dictionary(uniqueKeysWithValues: zip(facts.map(\.text), [vector(cosine: 0.62), vector(cosine: 0.10), vector(cosine: 0.60)]))
        return ChosenVectorsEmbedder { chosen[$0] ?? [1, 0] }
    }

    @Test func factsAreScoredByTheirCosineAndTheRelevantOnesRecalled() async throws {
        let recall = MemoryRecall()
        let embedder = Self.embedder()
        let scores = try await recall.scores(of: "Is a Snickers bar a safe snack?", among: Self.facts, embedder: embedder, model: "e")
        #expect(scores.map(\.fact) == [Self.facts[0], Self.facts[2], Self.facts[1]])
        #expect(zip(scores.map(\.score), [0.62, 0.60, 0.10]).allSatisfy { abs($0 - $1) < 1e-4 })

        let relevant = try await recall.relevant(to: "Is a Snickers bar a safe snack?", among: Self.facts, embedder: embedder, model: "e")
        #expect(relevant.map(\.fact) == [Self.facts[0], Self.facts[2]])
        #expect(try await recall.relevant(to: "Is a Snickers bar a safe snack for me?", among: Self.facts, embedder: embedder, model: "e").map(\.fact) == [Self.facts[0], Self.facts[2]])
    }

    @Test func aFactIsEmbeddedOncePerModelAndTextAfterwardsOnlyTheQuestion() async throws {
        let recall = MemoryRecall()
        let embedder = Self.embedder()
        _ = try await recall.relevant(to: "First question?", among: Self.facts, embedder: embedder, model: "e")
        let first = try #require(embedder.calls.first)
        #expect(first.first == "First question?")
        #expect(Set(first.dropFirst()) == Set(Self.facts.map(\.text)))

        _ = try await recall.relevant(to: "Second question?", among: Self.facts, embedder: embedder, model: "e")
        #expect(embedder.calls.last == ["Second question?"])

        let edited = MemoryFact(id: Self.facts[1].id, text: "The user lives in Lyon, France.", status: .accepted)
        _ = try await recall.relevant(to: "Third?", among: [Self.facts[0], edited], embedder: embedder, model: "e")
        #expect(embedder.calls.last == ["Third?", edited.text], "an edited fact is embedded again")

        _ = try await recall.relevant(to: "Fourth?", among: [Self.facts[0]], embedder: embedder, model: "other")
        #expect(embedder.calls.last == ["Fourth?", Self.facts[0].text], "another embedding model's vectors are not reused")
        #expect(embedder.calls.count == 4)
    }

    @Test func noFactsOrAQuestionWithoutWordsCostsNoEmbedding() async throws {
        let recall = MemoryRecall()
        let embedder = Self.embedder()
        #expect(try await recall.relevant(to: "Anything?", among: [], embedder: embedder, model: "e").isEmpty)
        #expect(try await recall.relevant(to: " 42 ?! ", among: Self.facts, embedder: embedder, model: "e").isEmpty)
        #expect(embedder.calls.isEmpty)
    }

    @Test func anEmbedderReturningTooFewVectorsRecallsNothing() async throws {
        let embedder = ChosenVectorsEmbedder(dropOne: true) { _ in [1, 0] }
        #expect(try await MemoryRecall().scores(of: "Is this for me?", among: Self.facts, embedder: embedder, model: "e").isEmpty)
    }

    @Test func factsKeptFromEarlierAreStillScoredWhenTheKeptVectorsOverflow() async throws {
        let recall = MemoryRecall()
        let embedder = ChosenVectorsEmbedder { $0.hasPrefix("The user") ? [0.5, 0.5] : [1, 0] }
        let many = (0...10_000).map { MemoryFact(text: "The user noted thing \($0).", status: .accepted) }
        #expect(try await recall.scores(of: "Question?", among: many, embedder: embedder, model: "e").count == many.count)
        let more = many + [MemoryFact(text: "The user noted one thing more.", status: .accepted)]
        let scored = try await recall.scores(of: "Question?", among: more, embedder: embedder, model: "e")
        #expect(scored.count == more.count)
    }

    @Test func aRememberedFactCountsAsUsedWhenTheAnswerCitesOrSaysIt() {
        let vegetarian = Citation.remembered(MemoryFact(text: "The user is vegetarian.", status: .accepted), number: 2, score: 0.5)
        #expect(MemoryRecall.isUsed(vegetarian, in: "Try a lentil curry [2]."))
        #expect(MemoryRecall.isUsed(vegetarian, in: "Since you are a Vegetarian, skip the anchovies."))
        #expect(!MemoryRecall.isUsed(vegetarian, in: "Lima is the capital of Peru [1]."))
        #expect(!MemoryRecall.isUsed(vegetarian, in: "The user likes this."), "words every fact has say nothing")

        let daughter = Citation.remembered(MemoryFact(text: "The user's daughter Ana was born in 2019.", status: .accepted), number: 1, score: 0.4)
        #expect(MemoryRecall.isUsed(daughter, in: "Ana will love a unicorn cake."), "a short name counts")
        #expect(!MemoryRecall.isUsed(daughter, in: "Banana bread is easy to bake."), "but only as a word's start")
    }
}
