import Foundation
public import SibylCore

/// Which passage supports each sentence of an answer from documents: the passages a sentence
/// cites (`[n]`), else the first passage that holds its terms (the same test as `SupportCheck`),
/// else none (the sentence rests on no passage it was given).
public struct ClaimSupport: Sendable, Hashable {
    /// A sentence of the answer, as written (its references included).
    public var text: String
    /// The numbers of the passages that support it; empty when none does.
    public var citations: [Int]

    public init(text: String, citations: [Int]) {
        self.text = text
        self.citations = citations
    }

    /// Each sentence of `answer` with its supporting passages; empty without citations.
    public static func claims(in answer: String, citations: [Citation]) -> [ClaimSupport] {
        guard !citations.isEmpty else { return [] }
        let numbers = Set(citations.map(\.number))
        return sentences(of: answer).map { sentence in
            let cited = Grounding.referencedNumbers(in: sentence).filter(numbers.contains).sorted()
            if !cited.isEmpty { return ClaimSupport(text: sentence, citations: cited) }
            let claims = SupportCheck.terms(of: SupportCheck.withoutReferences(sentence))
            guard !claims.isEmpty, let best = citations.first(where: { SupportCheck.supports($0, claims: claims, asked: []) }) else {
                return ClaimSupport(text: sentence, citations: [])
            }
            return ClaimSupport(text: sentence, citations: [best.number])
        }
    }

    /// The passages some sentence rests on, in their order.
    public static func cited(by claims: [ClaimSupport]) -> Set<Int> {
        Set(claims.flatMap(\.citations))
    }

    /// The sentences of a text: ended by `.`, `!`, `?` (or their full-width forms) before a space
    /// or the end, or by a line break; references written just after a sentence's end (`… Paris. [1]`)
    /// stay with it. Empty pieces are dropped.
    static func sentences(of text: String) -> [String] {
        var sentences: [String] = []
        var current = ""
        var ended = false
        func close() {
            let trimmed = current.trimmingCharacters(in: .whitespacesAndNewlines)
            if !trimmed.isEmpty { sentences.append(trimmed) }
            current = ""
            ended = false
        }
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == "\n" {
                close()
            } else if ended, character.isWhitespace {
                // A reference right after the end belongs to the sentence it ends.
                let rest = text[index...].drop(while: { $0 == " " })
                if let reference = rest.firstMatch(of: /^\[\d+(?:\s*,\s*\d+)*\]/) {
                    current += " " + reference.output
                    index = reference.range.upperBound
                    continue
                }
                close()
            } else {
                current.append(character)
                ended = ".!?。！？".contains(character) && !Self.isAbbreviationEnd(current)
            }
            index = text.index(after: index)
        }
        close()
        return sentences
    }

    /// Whether a period ends an abbreviation or a number rather than a sentence (`e.g.`, `3.`).
    private static func isAbbreviationEnd(_ text: String) -> Bool {
        guard text.hasSuffix(".") else { return false }
        let word = text.dropLast().split(whereSeparator: { $0.isWhitespace }).last.map(String.init) ?? ""
        return ["e.g", "i.e", "etc", "vs", "mr", "mrs", "dr", "no", "fig"].contains(word.lowercased()) || (word.count == 1 && word.first?.isLetter == true)
    }
}
