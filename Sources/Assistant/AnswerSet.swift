public import Foundation
import Knowledge
public import SibylCore

/// A test set for answers from documents: a `documents/` folder and `questions.jsonl`, one
/// question per line:
///
///     {"id": "q1", "question": "In which Python version was math.isqrt added?", "answer": "3.8", "source": "math.html"}
///     {"id": "u1", "question": "In which Python version was os.memfd_create added?", "answer": null}
///
/// `answer` is the fact a right answer contains (a string, or a list of accepted forms), and
/// `source` the file in `documents/` that holds it. A question whose `answer` is null (or absent)
/// is answered by no document: the right reply says so.
public struct AnswerSet: Sendable {
    public struct Question: Sendable, Hashable {
        public var id: String
        public var text: String
        /// Accepted forms of the expected fact; empty when no document answers the question.
        public var facts: [String]
        /// The file name of the document that holds the fact.
        public var source: String?

        public var isAnswerable: Bool { !facts.isEmpty }

        public init(id: String, text: String, facts: [String], source: String?) {
            self.id = id
            self.text = text
            self.facts = facts
            self.source = source
        }
    }

    public var documents: [URL]
    public var questions: [Question]

    public init(directory: URL) throws {
        let folder = directory.appendingPathComponent("documents", isDirectory: true)
        let found = FileDiscovery.files(from: [folder.path], relativeTo: directory)
        guard !found.files.isEmpty else { throw EvaluationError.missingAnswerSetPart(folder.path) }
        documents = found.files
        let file = directory.appendingPathComponent("questions.jsonl")
        guard let data = FileManager.default.contents(atPath: file.path) else { throw EvaluationError.missingAnswerSetPart(file.path) }
        let names = Set(documents.map(\.lastPathComponent))
        questions = try String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).map { line in
            guard let item = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any],
                  let id = item["id"] as? String, let text = item["question"] as? String else {
                throw EvaluationError.malformedQuestion(String(line.prefix(80)))
            }
            let facts: [String]
            switch item["answer"] {
            case let one as String: facts = [one]
            case let many as [String]: facts = many
            default: facts = []
            }
            let source = item["source"] as? String
            if !facts.isEmpty {
                guard let source, names.contains(source) else { throw EvaluationError.unknownSource(question: id, source: source ?? "(none)") }
            }
            return Question(id: id, text: text, facts: facts.filter { !$0.isEmpty }, source: facts.isEmpty ? nil : source)
        }
        guard !questions.isEmpty else { throw EvaluationError.empty(file.path) }
    }
}

/// How one answer did, by the rules `AnswerGrader` applies.
public struct AnswerGrade: Sendable, Hashable, Codable {
    /// The answer contains the expected fact.
    public var containsFact: Bool
    /// The answer cites (by its `[n]` numbers) a passage of the document that holds the fact.
    public var citesSource: Bool
    /// The answer says the documents do not answer the question (or no model was asked).
    public var declined: Bool

    public init(containsFact: Bool, citesSource: Bool, declined: Bool) {
        self.containsFact = containsFact
        self.citesSource = citesSource
        self.declined = declined
    }

    /// Right for its question: the fact with its source, or, with no answer in the documents, a plain "not found".
    public func isRight(answerable: Bool) -> Bool {
        answerable ? containsFact && citesSource && !declined : declined
    }
}

/// Grades answers against an `AnswerSet` question.
public enum AnswerGrader {
    /// Words with which an answer says the documents do not hold the answer (lowercased; the
    /// grounding prompt asks for the first).
    public static let declinePhrases = [
        "could not find this in your documents", "couldn't find this in your documents", "could not find", "couldn't find",
        "do not contain", "does not contain", "don't contain", "doesn't contain", "do not say", "does not say", "don't say",
        "doesn't say", "do not mention", "does not mention", "not mentioned", "no information", "not in your documents",
        // Korean and Indonesian, as `ReplyLanguage` words it.
        "찾을 수 없습니다", "tidak menemukan",
    ]

    public static func grade(answer: String, declinedWithoutModel: Bool, citations: [Citation], question: AnswerSet.Question) -> AnswerGrade {
        let text = normalized(answer)
        let declined = declinedWithoutModel || declinePhrases.contains { text.contains($0) }
        let containsFact = question.facts.contains { contains(text, fact: normalized($0)) }
        var citesSource = false
        if let source = question.source {
            let numbers = Grounding.referencedNumbers(in: answer)
            citesSource = citations.contains { citation in
                numbers.contains(citation.number) && URL(fileURLWithPath: citation.documentPath).lastPathComponent == source
            }
        }
        return AnswerGrade(containsFact: containsFact, citesSource: citesSource, declined: declined)
    }

    /// Lowercased, with runs of whitespace as one space and typographic apostrophes plain.
    static func normalized(_ text: String) -> String {
        text.lowercased().replacingOccurrences(of: "\u{2019}", with: "'").split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// Whether `fact` occurs in `text` as a whole: not inside a longer word or number ("3.8" is
    /// not in "3.80" or "13.8").
    static func contains(_ text: String, fact: String) -> Bool {
        guard !fact.isEmpty else { return false }
        var searchRange = text.startIndex..<text.endIndex
        while let found = text.range(of: fact, range: searchRange) {
            let before = found.lowerBound > text.startIndex ? text[text.index(before: found.lowerBound)] : nil
            let after = found.upperBound < text.endIndex ? text[found.upperBound] : nil
            let afterNext = after == "." && text.index(after: found.upperBound) < text.endIndex ? text[text.index(after: found.upperBound)] : nil
            let startsClean = before.map { !($0.isLetter || $0.isNumber || ($0 == "." && fact.first?.isNumber == true)) } ?? true
            let endsClean = after.map { !($0.isLetter || $0.isNumber) && !($0 == "." && afterNext?.isNumber == true) } ?? true
            if startsClean && endsClean { return true }
            searchRange = text.index(after: found.lowerBound)..<text.endIndex
        }
        return false
    }
}
