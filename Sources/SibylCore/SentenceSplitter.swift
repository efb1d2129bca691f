/// Finds where sentences end, in whole text or in text as it streams in (an answer being written,
/// spoken a sentence at a time).
///
/// A Latin terminator (". ! ? …") ends a sentence only when whitespace follows it, so "3.14" stays
/// whole; CJK terminators and line breaks end one at once. A piece too short to be a sentence
/// ("3. " of a numbered list) or one that ends in an abbreviation ("e.g. ", "Dr. ") is joined to
/// the next. Sentences keep their trailing whitespace (what of it has arrived, when text streams
/// in), so they concatenate back to the text.
public struct SentenceSplitter: Sendable {
    /// Abbreviations after which a full stop does not end the sentence.
    public static let abbreviations: Set<String> = ["e.g.", "i.e.", "mr.", "mrs.", "ms.", "dr.", "prof.", "st.", "vs.", "cf.", "fig.", "no.", "vol.", "pp.", "approx."]

    private var current = ""
    /// A false end waiting for the piece after it.
    private var carry = ""
    private var pendingTerminator = false
    private var pendingClause = false
    private var atBoundary = false
    /// The first piece may end at a clause (", ; :") once it has this many words; nil: sentences only.
    private let firstClauseWords: Int?
    private var ended = 0

    /// `firstClauseWords`: the first piece may end at a clause mark (", ; :" followed by a space)
    /// once it has at least this many words, so that speech can start on a short first phrase
    /// ("Paris is the capital of France, …"); later pieces are whole sentences.
    public init(firstClauseWords: Int? = nil) {
        self.firstClauseWords = firstClauseWords
    }

    /// Adds text; the sentences it completed, in order.
    public mutating func append(_ text: some StringProtocol) -> [String] {
        var completed: [String] = []
        for character in text {
            if atBoundary, !character.isWhitespace {
                if let sentence = close() { completed.append(sentence) }
                atBoundary = false
            }
            current.append(character)
            if character == "\n" || "。！？".contains(character) {
                atBoundary = true
                pendingTerminator = false
            } else if ".!?…".contains(character) {
                pendingTerminator = true
            } else if ",;:".contains(character) {
                pendingClause = ended == 0 && firstClauseWords.map { (carry + current).split(whereSeparator: \.isWhitespace).count >= $0 } == true
            } else if character.isWhitespace {
                if pendingTerminator || pendingClause { atBoundary = true }
                // A long first phrase with no comma: it may end before a joining word ("…, and"
                // without the comma), where a speaker would breathe.
                if !atBoundary, ended == 0, let words = firstClauseWords, let cut = phraseCut(minimumWords: words + 2) {
                    completed += cut
                }
                pendingTerminator = false
                pendingClause = false
            } else if !"\"')]”’»".contains(character) {
                pendingTerminator = false
                pendingClause = false
            }
        }
        // A sentence that has ended goes now, not when the next one starts: text that streams in
        // may pause here for a while (the model thinking, the speaker waiting for the words).
        if atBoundary {
            if let sentence = close() { completed.append(sentence) }
            atBoundary = false
        }
        return completed
    }

    /// Words before which a long first phrase may end: those that join clauses, and prepositions
    /// that start a phrase of their own ("a standard playing card | in the deck"), where a speaker
    /// may breathe. "of" binds too closely ("the Ten | of Clubs") to be one.
    static let joiningWords: Set<String> = [
        "and", "but", "or", "so", "because", "which", "who", "that", "where", "when", "while", "with", "for", "if",
        "in", "on", "at", "from", "about", "by", "into", "during", "after", "before", "since", "than", "like",
    ]

    /// When the piece so far ends in a joining word after `minimumWords` others, outside quotes
    /// and brackets: the piece before that word, ended; the word starts the next piece.
    private mutating func phraseCut(minimumWords: Int) -> [String]? {
        let text = carry + current
        let words = text.split(whereSeparator: \.isWhitespace)
        guard words.count > minimumWords, let last = words.last, Self.joiningWords.contains(last.lowercased()) else { return nil }
        let before = text[..<last.startIndex]
        let quotes = before.count { $0 == "\"" }
        let opened = before.count { "(“[".contains($0) }, closed = before.count { ")”]".contains($0) }
        guard quotes.isMultiple(of: 2), opened == closed else { return nil }
        carry = ""
        current = String(text[last.startIndex...])
        ended += 1
        return [String(text[..<last.startIndex])]
    }

    /// What is left once the text is over (nil when nothing is).
    public mutating func finish() -> String? {
        let rest = carry + current
        carry = ""
        current = ""
        pendingTerminator = false
        pendingClause = false
        atBoundary = false
        return rest.isEmpty ? nil : rest
    }

    /// The current piece, ended: a sentence, or nil when it is a false end kept for the next.
    private mutating func close() -> String? {
        let joined = carry + current
        current = ""
        let trimmed = joined.trimmingCharacters(in: .whitespaces)
        let lastWord = trimmed.split(separator: " ").last.map { $0.lowercased() } ?? ""
        if trimmed.count < 4 || Self.abbreviations.contains(lastWord) {
            carry = joined
            return nil
        }
        carry = ""
        ended += 1
        return joined
    }

    /// The sentences of a whole text; a false end at the very end joins the sentence before it.
    public static func sentences(in text: String) -> [String] {
        var splitter = SentenceSplitter()
        var sentences = splitter.append(text)
        if !splitter.current.isEmpty, let last = splitter.close() { sentences.append(last) }
        if !splitter.carry.isEmpty {
            if sentences.isEmpty { sentences.append(splitter.carry) } else { sentences[sentences.count - 1] += splitter.carry }
        }
        return sentences
    }
}
