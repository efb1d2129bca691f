public import SibylCore
import Synchronization

/// Finds the facts of the user's memory that bear on a question, by the cosine of their embeddings
/// and the question's. Only those go into the prompt, never the whole memory: the best fact and
/// those within `margin` of it, at most `limit`, when it reaches `threshold`, or, for a question
/// the asker asks about themselves ("my car", "for me"), `personalThreshold`: such a question is
/// about them, and a fact about them is what answers it, however few words they share ("What tyre
/// pressure does my car need?" and "The user drives a 2014 Toyota Prius." have a MiniLM cosine of
/// 0.19). Measured with `sibyl eval --memory` on scripts/eval/memory.json. Facts' vectors are kept
/// (per embedding model and text), so a question costs one embedding.
public final class MemoryRecall: Sendable {
    /// The least cosine of a fact recalled for any question.
    public static let threshold = 0.35
    /// The least cosine of a fact recalled for a question about the asker.
    public static let personalThreshold = 0.05
    /// How far below the best fact another may be and still be recalled.
    public static let margin = 0.04
    /// The most facts one answer is given.
    public static let limit = 3

    private let vectors = Mutex<[String: [Float]]>([:])

    public init() {}

    /// The facts relevant to `question`, most relevant first.
    public func relevant(to question: String, among facts: [MemoryFact], embedder: any Embedder, model: String) async throws -> [RememberedFact] {
        Self.select(try await scores(of: question, among: facts, embedder: embedder, model: model), for: question)
    }

    /// The facts to recall from scored ones (see the type's description).
    public static func select(_ scored: [RememberedFact], for question: String) -> [RememberedFact] {
        guard let best = scored.first else { return [] }
        let floor = max(asksAboutThemselves(question) ? personalThreshold : threshold, best.score - margin)
        return Array(scored.prefix { $0.score >= floor }.prefix(limit))
    }

    /// Whether a question is about the asker: it speaks of them, and not only as anyone asking how
    /// a thing is done ("How do I sort a list?" is not about the asker; "What should I cook?" is).
    static func asksAboutThemselves(_ question: String) -> Bool {
        let procedural = /(?i)\bhow\s+(do|can|could|would|should)\s+i\b/
        return MemoryProposer.speaksOfThemselves(question.replacing(procedural, with: "how"))
    }

    /// Whether an answer made use of a remembered fact: it cites the fact's number, or it says
    /// something of the fact (a word of it that is not about the user in general, such as
    /// "vegetarian" or "Mia", at the start of one of the answer's words). An answer given a fact
    /// that did not need it names it only when it used it: the thread says "from your memory" only then.
    public static func isUsed(_ citation: Citation, in answer: String) -> Bool {
        if Grounding.referencedNumbers(in: answer).contains(citation.number) { return true }
        let said = Set(words(of: answer).map { String($0.prefix(stemLength)) })
        return words(of: citation.quote).contains { word in
            !ignored.contains(word) && (word.count >= 4 || citation.quote.contains(word.capitalized)) && said.contains(String(word.prefix(stemLength)))
        }
    }

    /// How much of a word two forms of it share ("allergic", "allergy").
    private static let stemLength = 6

    private static func words(of text: String) -> [String] {
        text.lowercased().split { !$0.isLetter && !$0.isNumber }.map(String.init)
    }

    /// Words of a fact that say nothing of it.
    private static let ignored: Set<String> = [
        "the", "user", "user's", "users", "they", "their", "them", "is", "are", "was", "has", "have", "had", "and", "with", "from",
        "that", "this", "who", "which", "for", "likes", "like", "lives", "works", "named", "called", "prefers", "wants", "does", "uses",
        "owns", "drives", "been", "into", "about", "also", "very", "usually", "often", "years", "year", "old",
    ]

    /// Every fact with its cosine to `question`, most similar first.
    public func scores(of question: String, among facts: [MemoryFact], embedder: any Embedder, model: String) async throws -> [RememberedFact] {
        guard !facts.isEmpty, question.contains(where: \.isLetter) else { return [] }
        let missing = Array(Set(facts.map(\.text).filter { text in vectors.withLock { $0[key(model, text)] == nil } }))
        let embedded = try await embedder.embed([question] + missing, options: EmbeddingOptions())
        guard embedded.vectors.count == missing.count + 1 else { return [] }
        var known = Dictionary(zip(missing, embedded.vectors.dropFirst()), uniquingKeysWith: { first, _ in first })
        vectors.withLock { kept in
            for fact in facts where known[fact.text] == nil { known[fact.text] = kept[key(model, fact.text)] }
            // A memory is small; a bound still keeps a long-running server from growing without end
            // (this question is scored from the vectors in hand).
            if kept.count > 10_000 { kept.removeAll() }
            for (text, vector) in zip(missing, embedded.vectors.dropFirst()) { kept[key(model, text)] = vector }
        }
        let asked = embedded.vectors[0]
        let scored = facts.compactMap { fact -> RememberedFact? in
            guard let vector = known[fact.text] else { return nil }
            return RememberedFact(fact: fact, score: cosine(asked, vector))
        }
        return scored.sorted { $0.score > $1.score }
    }

    private func key(_ model: String, _ text: String) -> String { model + "\u{0}" + text }
}
