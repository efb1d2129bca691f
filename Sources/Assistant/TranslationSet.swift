public import Foundation
import Knowledge

/// A test set for the translator: `translations.jsonl`, one sentence per line in several
/// languages, each a reference translation of the others:
///
///     {"id": "t1", "texts": {"en": "Where is the nearest train station?", "ko": "…", "id": "…"}}
///
/// Every line must hold the same languages. `scripts/eval/translations.jsonl` is the team's own
/// set (English, Korean, Indonesian).
public struct TranslationSet: Sendable {
    public struct Sentence: Sendable, Hashable {
        public var id: String
        /// Text by language code.
        public var texts: [String: String]
    }

    public var sentences: [Sentence]
    /// The language codes every sentence has, sorted.
    public var languages: [String]

    public init(file: URL) throws {
        guard let data = FileManager.default.contents(atPath: file.path) else { throw EvaluationError.missingFile(file.path) }
        sentences = try String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).map { line in
            guard let item = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any],
                  let id = item["id"] as? String, let texts = item["texts"] as? [String: String], texts.count >= 2 else {
                throw TranslationSetError.malformed(String(line.prefix(80)))
            }
            return Sentence(id: id, texts: texts)
        }
        guard let first = sentences.first else { throw EvaluationError.empty(file.path) }
        let languages = Set(first.texts.keys)
        if let odd = sentences.first(where: { Set($0.texts.keys) != languages }) {
            throw TranslationSetError.differentLanguages(odd.id)
        }
        self.languages = languages.sorted()
    }

    /// The directions measured: from `pivot` into every other language and back.
    public func directions(pivot: String = "en") -> [TranslationDirection] {
        let others = languages.filter { $0 != pivot }
        guard languages.contains(pivot) else {
            return languages.flatMap { source in languages.filter { $0 != source }.map { TranslationDirection(source: source, target: $0) } }
        }
        return others.map { TranslationDirection(source: pivot, target: $0) } + others.map { TranslationDirection(source: $0, target: pivot) }
    }
}

public enum TranslationSetError: Error, LocalizedError, Equatable {
    case malformed(String)
    case differentLanguages(String)

    public var errorDescription: String? {
        switch self {
        case .malformed(let line): "The translation set has a line that is not {\"id\", \"texts\": {language: text, …}} with two languages or more: \(line)"
        case .differentLanguages(let id): "Sentence \(id) of the translation set has other languages than the first line."
        }
    }
}

/// One language pair, in one direction.
public struct TranslationDirection: Sendable, Hashable, CustomStringConvertible {
    public var source: String
    public var target: String

    public var description: String { "\(source) → \(target)" }

    /// The language's English name for the translator's prompt ("ko" → "Korean").
    public static func name(of code: String) -> String {
        Locale(identifier: "en").localizedString(forLanguageCode: code) ?? code
    }
}

/// chrF (Popović, 2015): the F-score (β = 2, recall weighted) of character n-grams, n = 1 … 6,
/// with white space left out, as sacreBLEU computes it by default. Corpus scores add up every
/// sentence's n-gram counts before dividing; an order that either side has no n-gram of is left
/// out of the averages. 0 … 100.
public struct ChrF: Sendable {
    public static let order = 6
    public static let beta = 2.0

    /// Per order: n-grams in the hypotheses, in the references, and matched.
    private var hypothesis = [Int](repeating: 0, count: order)
    private var reference = [Int](repeating: 0, count: order)
    private var matched = [Int](repeating: 0, count: order)

    public init() {}

    /// Adds one sentence pair.
    public mutating func add(hypothesis: String, reference: String) {
        let hyp = Array(hypothesis.filter { !$0.isWhitespace }), ref = Array(reference.filter { !$0.isWhitespace })
        for n in 1...Self.order {
            let a = Self.grams(hyp, n), b = Self.grams(ref, n)
            self.hypothesis[n - 1] += a.values.reduce(0, +)
            self.reference[n - 1] += b.values.reduce(0, +)
            matched[n - 1] += a.reduce(0) { $0 + min($1.value, b[$1.key] ?? 0) }
        }
    }

    /// The score of what has been added.
    public var score: Double {
        var precision = 0.0, recall = 0.0, orders = 0
        for index in 0..<Self.order where hypothesis[index] > 0 && reference[index] > 0 {
            precision += Double(matched[index]) / Double(hypothesis[index])
            recall += Double(matched[index]) / Double(reference[index])
            orders += 1
        }
        guard orders > 0 else { return 0 }
        precision /= Double(orders)
        recall /= Double(orders)
        let factor = Self.beta * Self.beta
        guard precision + recall > 0 else { return 0 }
        return 100 * (1 + factor) * precision * recall / (factor * precision + recall)
    }

    /// The score of one pair.
    public static func sentence(hypothesis: String, reference: String) -> Double {
        var chrF = ChrF()
        chrF.add(hypothesis: hypothesis, reference: reference)
        return chrF.score
    }

    private static func grams(_ characters: [Character], _ n: Int) -> [String: Int] {
        guard characters.count >= n else { return [:] }
        var counts: [String: Int] = [:]
        for start in 0...(characters.count - n) {
            counts[String(characters[start..<(start + n)]), default: 0] += 1
        }
        return counts
    }
}
