import Foundation
public import Knowledge
public import SibylCore

/// The sources a grounded answer must rest on: instructions with the numbered passages, and the citations they become.
public struct Grounding: Sendable, Hashable {
    /// The sampling temperature of answers from documents when neither the turn, the persona nor
    /// the settings choose one.
    public static let temperature = 0.2

    /// Text added to the system prompt.
    public var instructions: String
    public var citations: [Citation]

    public init(instructions: String, citations: [Citation]) {
        self.instructions = instructions
        self.citations = citations
    }

    /// Builds the instructions for numbered passages; `language` is the question's, in which the
    /// model is to say that the sources do not answer it.
    public init(citations: [Citation], language: ReplyLanguage = .english) {
        var text = """
        Answer the user's question in words, using only the numbered sources below. After each statement, \
        cite the source it comes from with its number in square brackets, such as [1] or [2][3]. If the sources do \
        not contain the answer, do not guess and do not use what you know: reply only "\(language.notInDocuments)"

        Sources:
        """
        for citation in citations {
            let location = citation.location.isEmpty ? "" : " (\(citation.location))"
            text += "\n\n[\(citation.number)] \(citation.documentTitle)\(location)\n\(citation.quote)"
        }
        self.init(instructions: text, citations: citations)
    }

    /// The citations an answer refers to by number; all of them when it refers to none.
    public static func cited(in answer: String, from citations: [Citation]) -> [Citation] {
        let numbers = referencedNumbers(in: answer)
        let used = citations.filter { numbers.contains($0.number) }
        return used.isEmpty ? citations : used
    }

    /// The answer without its `[n]` references (and the space before each), for a screen with no
    /// room for a list of sources.
    public static func withoutReferenceMarkers(_ text: String) -> String {
        text.replacing(/\s?\[\d+(?:,\s*\d+)*\]/, with: "")
    }

    /// Numbers in `[n]` references, including `[1, 2]` and `[1][2]`.
    static func referencedNumbers(in text: String) -> Set<Int> {
        var numbers = Set<Int>()
        var inside = false
        var current = ""
        for character in text {
            if character == "[" {
                inside = true
                current = ""
            } else if character == "]" {
                if inside { for part in current.split(whereSeparator: { $0 == "," || $0 == " " }) { if let n = Int(part) { numbers.insert(n) } } }
                inside = false
            } else if inside {
                if character.isNumber || character == "," || character == " " { current.append(character) } else { inside = false }
            }
        }
        return numbers
    }
}

extension Grounding {
    /// What is said (and saved) instead of an answer when no passage is relevant enough: the
    /// documents are not guessed from.
    public static func declinedReply(closest: [SearchResult], threshold: Double, question: String = "") -> String {
        let score = closest.first.map { best in best.vectorScore.map { String(format: "%.2f", $0) } ?? "n/a" }
        return ReplyLanguage.of(question).nothingRelevant(score: score, threshold: String(format: "%.2f", threshold))
    }
}

extension Grounding {
    /// The sources an answer cites, as text that can follow the answer: "Sources:" and one line per
    /// source (`[1] handbook.pdf, page 3`). Empty without citations.
    public static func sourcesBlock(_ citations: [Citation]) -> String {
        guard !citations.isEmpty else { return "" }
        let lines = citations.map { citation in
            "[\(citation.number)] \(citation.documentTitle)" + (citation.location.isEmpty ? "" : ", \(citation.location)")
        }
        return "\n\nSources:\n" + lines.joined(separator: "\n")
    }
}
