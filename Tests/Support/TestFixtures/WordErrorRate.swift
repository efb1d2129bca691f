import Foundation

/// Word error rate: (substitutions + deletions + insertions) / reference words, after normalising both texts.
public struct WordErrorRate: Sendable, CustomStringConvertible {
    public var errors: Int
    public var referenceWords: Int

    public var rate: Double { referenceWords == 0 ? (errors == 0 ? 0 : 1) : Double(errors) / Double(referenceWords) }

    public var description: String { String(format: "%.1f %% (%d errors / %d words)", rate * 100, errors, referenceWords) }

    public init(errors: Int, referenceWords: Int) {
        self.errors = errors
        self.referenceWords = referenceWords
    }

    public init(reference: String, hypothesis: String) {
        let ref = Self.normalizedWords(reference)
        let hyp = Self.normalizedWords(hypothesis)
        self.init(errors: Self.editDistance(ref, hyp), referenceWords: ref.count)
    }

    public static func + (lhs: WordErrorRate, rhs: WordErrorRate) -> WordErrorRate {
        WordErrorRate(errors: lhs.errors + rhs.errors, referenceWords: lhs.referenceWords + rhs.referenceWords)
    }

    /// Spellings Whisper abbreviates that transcripts write out (as Whisper's English normaliser does),
    /// and small numbers, which recognisers write as digits and transcripts as words.
    public static let expansions: [String: String] = {
        var words = ["mr": "mister", "mrs": "missus", "dr": "doctor", "st": "saint"]
        let numbers = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                       "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"]
        for (value, word) in numbers.enumerated() { words[String(value)] = word }
        return words
    }()

    /// Lower case, apostrophes dropped ("don't" → "dont"), other punctuation and hyphens split words.
    public static func normalizedWords(_ text: String) -> [String] {
        var cleaned = ""
        for character in text.lowercased() {
            if character == "'" || character == "\u{2019}" { continue }
            cleaned.append(character.isLetter || character.isNumber ? character : " ")
        }
        return cleaned.split(separator: " ").map { expansions[String($0)] ?? String($0) }
    }

    /// Levenshtein distance over words.
    public static func editDistance(_ a: [String], _ b: [String]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
