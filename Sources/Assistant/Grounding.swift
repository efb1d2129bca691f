import Foundation
import SibylCore

/// The sources a grounded answer must rest on: instructions with the numbered passages, and the citations they become.
public struct Grounding: Sendable, Hashable {
    /// Text added to the system prompt.
    public var instructions: String
    public var citations: [Citation]

    public init(instructions: String, citations: [Citation]) {
        self.instructions = instructions
        self.citations = citations
    }

    /// Builds the instructions for numbered passages.
    public init(citations: [Citation]) {
        var text = """
        Answer the user's question using only the numbered sources below. After each statement, cite the \
        source it comes from with its number in square brackets, such as [1] or [2][3]. If the sources do \
        not contain the answer, say plainly that the documents do not say, and do not guess.

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
