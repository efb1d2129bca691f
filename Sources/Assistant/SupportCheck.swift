import Foundation
public import SibylCore

/// Checks that an answer from documents rests on a passage it was given, by the words it uses.
///
/// A small model often states the right fact without citing it, and sometimes states a fact that
/// no passage holds (the answer it remembers, or a number from a neighbouring passage). When the
/// answer is finished, its own terms (numbers, names, words that the question does not already
/// contain) are looked for in the passages:
/// - a passage it cites holds them: the answer stands;
/// - it cites none that does, but another passage holds them: that passage's number is added;
/// - no passage holds them: a plain "I could not find this in your documents" is added, in the
///   language of the question.
///
/// A passage holds an answer when it has every number and name of the answer (or, for an answer
/// without any, at least half of its words), and at least half of the question's terms, among them every name the question
/// asks about (`math.isqrt`, `NormalDist`; a qualified name also counts when only its last part is
/// written): a passage about something else is no support even when it happens to hold the same number.
public enum SupportCheck {
    /// What is added to an answer to `question` that no passage supports, in the question's language.
    public static func unsupportedNote(for question: String) -> String {
        "\n\n" + ReplyLanguage.of(question).unsupportedNote
    }

    /// The text to add to a finished grounded answer, or nil when it stands as it is.
    public static func amendment(answer: String, question: String, citations: [Citation]) -> String? {
        guard !citations.isEmpty else { return nil }
        let normalized = AnswerGrader.normalized(answer)
        if AnswerGrader.declinePhrases.contains(where: normalized.contains) { return nil }
        let asked = terms(of: question)
        let askedSet = Set(asked.map(\.text))
        let claims = terms(of: Self.withoutReferences(answer)).filter { !askedSet.contains($0.text) }
        // An answer that only repeats the question (or is empty) claims nothing to check.
        guard !claims.isEmpty else { return nil }
        let supporting = citations.filter { supports($0, claims: claims, asked: asked) }
        let cited = Grounding.referencedNumbers(in: answer)
        if supporting.contains(where: { cited.contains($0.number) }) { return nil }
        if let best = supporting.first {
            return answer.hasSuffix(" ") || answer.hasSuffix("\n") ? "[\(best.number)]" : " [\(best.number)]"
        }
        return unsupportedNote(for: question)
    }

    /// A term of a text: lowercased, and whether it is a name or number (which must match exactly).
    struct Term: Hashable {
        var text: String
        var isExact: Bool
    }

    static func terms(of text: String) -> [Term] {
        var seen = Set<String>()
        var result: [Term] = []
        for raw in text.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "." || $0 == "_" || $0 == "-") }) {
            let trimmed = raw.trimmingCharacters(in: CharacterSet(charactersIn: ".-_"))
            guard !trimmed.isEmpty else { continue }
            let lower = trimmed.lowercased()
            guard !stopWords.contains(lower), lower.count > 1 || lower.first?.isNumber == true else { continue }
            // Names: `math.isqrt`, `snake_case`, `CamelCase` inside a word, anything with a digit.
            let isExact = trimmed.contains { $0.isNumber || $0 == "." || $0 == "_" }
                || trimmed.dropFirst().contains { $0.isUppercase }
            if seen.insert(lower).inserted { result.append(Term(text: lower, isExact: isExact)) }
        }
        return result
    }

    static func supports(_ citation: Citation, claims: [Term], asked: [Term]) -> Bool {
        // The claims must be in the passage itself; what it is about may also show in its title
        // and headings. A qualified name (`statistics.fmean`) is often written short further on (`fmean(grades)`).
        var passage = Set(terms(of: (citation.headingPath + [citation.quote]).joined(separator: " ")).map(\.text))
        passage.formUnion(passage.compactMap(lastComponent))
        var about = passage.union(terms(of: citation.documentTitle).map(\.text))
        about.formUnion(about.compactMap(lastComponent))
        let exactClaims = claims.filter(\.isExact), wordClaims = claims.filter { !$0.isExact }
        // Numbers and names are the facts; the words around them may be the model's own.
        if !exactClaims.isEmpty {
            guard exactClaims.allSatisfy({ passage.contains($0.text) }) else { return false }
        } else if Double(wordClaims.filter { passage.contains($0.text) }.count) < Double(wordClaims.count) / 2 {
            return false
        }
        func mentions(_ term: Term) -> Bool { about.contains(term.text) || lastComponent(term.text).map(about.contains) == true }
        guard asked.filter(\.isExact).allSatisfy(mentions) else { return false }
        return asked.isEmpty || Double(asked.filter(mentions).count) >= Double(asked.count) / 2
    }

    /// `fmean` of `statistics.fmean`; nil for a term without a dot, or with a short last part.
    static func lastComponent(_ term: String) -> String? {
        guard let dot = term.lastIndex(of: "."), term[term.index(after: dot)...].count >= 3,
              term[term.index(after: dot)...].contains(where: \.isLetter) else { return nil }
        return String(term[term.index(after: dot)...])
    }

    /// The answer without its `[n]` references (their numbers are not claims).
    static func withoutReferences(_ text: String) -> String {
        text.replacingOccurrences(of: #"\[\d+(?:\s*,\s*\d+)*\]"#, with: " ", options: .regularExpression)
    }

    static let stopWords: Set<String> = [
        "a", "an", "the", "is", "are", "was", "were", "be", "been", "being", "in", "on", "at", "of", "to", "for", "and", "or", "with",
        "by", "from", "as", "it", "its", "this", "that", "these", "those", "which", "what", "when", "where", "who", "whom", "how", "why",
        "does", "do", "did", "has", "have", "had", "can", "could", "will", "would", "should", "may", "might", "there", "here", "into",
        "than", "then", "also", "not", "no", "yes", "your", "you", "i", "we", "they", "he", "she", "them", "his", "her", "our", "their",
        "about", "after", "before", "over", "under", "between", "per", "each", "any", "all", "some", "more", "most", "other", "such",
        "only", "so", "if", "but", "source", "sources", "document", "documents", "passage", "passages", "answer", "according",
    ]
}

extension SupportCheck {
    /// A grounded answer's stream, checked when it finishes against the last question of the
    /// messages it answers: what `amendment` adds comes as one more piece of text before the end,
    /// and is part of the finished text.
    static func checked(_ events: AsyncThrowingStream<ChatStreamEvent, any Error>, answering messages: [ChatMessage], citations: [Citation]) -> AsyncThrowingStream<ChatStreamEvent, any Error> {
        guard !citations.isEmpty else { return events }
        let question = messages.last { $0.role == .user }?.text ?? ""
        let source = CheckedEvents(events.makeAsyncIterator())
        return AsyncThrowingStream {
            try await source.next { completion in
                amendment(answer: completion.text, question: question, citations: citations)
            }
        }
    }

    /// The wrapped stream's iterator, and the finish held back behind the added text (used by one consumer).
    private final class CheckedEvents: @unchecked Sendable {
        private var iterator: AsyncThrowingStream<ChatStreamEvent, any Error>.AsyncIterator
        private var held: ChatStreamEvent?

        init(_ iterator: AsyncThrowingStream<ChatStreamEvent, any Error>.AsyncIterator) {
            self.iterator = iterator
        }

        func next(amend: (ChatCompletion) -> String?) async throws -> ChatStreamEvent? {
            if let event = held {
                held = nil
                return event
            }
            guard let event = try await iterator.next() else { return nil }
            guard case .finished(var completion) = event, let extra = amend(completion) else { return event }
            completion.text += extra
            held = .finished(completion)
            return .delta(extra)
        }
    }
}
