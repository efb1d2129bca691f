import Foundation
import SibylCore
/// Splits long text into pieces no longer than a limit, preferring sentence boundaries.
enum TextSplitter {
    /// Pieces of at most `limit` characters that concatenate back to `text` (whitespace between them aside).
    static func split(_ text: String, limit: Int) -> [String] {
        precondition(limit > 0)
        guard text.count > limit else { return [text] }
        var pieces: [String] = []
        var current = ""
        for sentence in sentences(in: text) {
            if current.count + sentence.count <= limit {
                current += sentence
                continue
            }
            if !current.isEmpty { pieces.append(current) }
            current = ""
            if sentence.count <= limit {
                current = sentence
            } else {
                // A sentence longer than the limit: break at spaces, and hard-break giant words.
                for word in sentence.split(separator: " ", omittingEmptySubsequences: false) {
                    let candidate = current.isEmpty ? String(word) : current + " " + word
                    if candidate.count <= limit {
                        current = candidate
                    } else {
                        if !current.isEmpty { pieces.append(current) }
                        var rest = Substring(word)
                        while rest.count > limit {
                            pieces.append(String(rest.prefix(limit)))
                            rest = rest.dropFirst(limit)
                        }
                        current = String(rest)
                    }
                }
            }
        }
        if !current.isEmpty { pieces.append(current) }
        return pieces.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
    }

    /// Sentences with their trailing punctuation and whitespace (see `SentenceSplitter`).
    static func sentences(in text: String) -> [String] {
        SentenceSplitter.sentences(in: text)
    }
}
