import Foundation
import SibylCore

/// A chunk before it is stored: text, size, and where it came from.
public struct ChunkDraft: Sendable, Hashable {
    public var text: String
    public var tokenCount: Int
    public var page: Int?
    public var headingPath: [String]
    /// Character offsets into the document's text (`Chunker.text(of:)`).
    public var startOffset: Int
    public var endOffset: Int

    public init(text: String, tokenCount: Int, page: Int?, headingPath: [String], startOffset: Int, endOffset: Int) {
        self.text = text
        self.tokenCount = tokenCount
        self.page = page
        self.headingPath = headingPath
        self.startOffset = startOffset
        self.endOffset = endOffset
    }
}

/// The text a passage is embedded as: its own, after the innermost heading or defined term it
/// sits under when the passage does not begin with it. A passage that continues a long section
/// (the "New in version 3.5." closing `math.isclose`'s entry) is then found by what it is about;
/// its stored text, which citations quote, stays as the document has it.
public func embeddingText(of text: String, headingPath: [String]) -> String {
    guard let context = headingPath.last, !context.isEmpty, !text.hasPrefix(context) else { return text }
    return context + "\n\n" + text
}

/// Cuts a document into passages that respect its structure and the embedder's limit.
///
/// A new passage begins at every heading and defined term and, in paginated documents, at every
/// page, so each passage has one heading path and one page. A term (an API signature in reference
/// documentation, a glossary word) heads what describes it as a heading does: measured on
/// Python's library reference, a function's description and its "New in version" note had often
/// been cut apart, and a passage continuing a long entry now names its function in its path. Within a section, sentences are added until the
/// next would pass the target size; the cut moves back to the last paragraph end when that loses
/// little, and the next passage repeats the last sentences (the overlap) for context. Sizes are in
/// the embedder's own tokens, and no passage exceeds its limit.
public struct Chunker: Sendable {
    public var counter: any TokenCounter
    /// The size aimed at, in tokens.
    public var targetTokens: Int
    /// Tokens repeated from the end of one passage at the start of the next.
    public var overlapTokens: Int
    /// The most tokens the embedder reads; no passage is larger.
    public var limitTokens: Int

    /// A chunker with the default size (about 400 tokens, 15 % overlap), capped at the embedder's limit.
    public init(counter: any TokenCounter, limitTokens: Int, targetTokens: Int = 400, overlapFraction: Double = 0.15) {
        self.counter = counter
        self.limitTokens = max(8, limitTokens)
        self.targetTokens = max(8, min(targetTokens, self.limitTokens))
        self.overlapTokens = max(0, Int(Double(self.targetTokens) * min(0.5, max(0, overlapFraction))))
    }

    /// The text offsets refer to: blocks joined by blank lines.
    public static func text(of document: ExtractedDocument) -> String {
        document.blocks.map(\.text).joined(separator: "\n\n")
    }

    /// A sentence (or a piece of an over-long one) with where it is.
    struct Unit {
        var start: Int
        var end: Int
        var tokens: Int
        /// Whether a paragraph (block) ends here: a good place to cut.
        var endsBlock: Bool
    }

    public func chunks(of document: ExtractedDocument) -> [ChunkDraft] {
        let fullText = Self.text(of: document)
        let characters = Array(fullText)
        var drafts: [ChunkDraft] = []
        var offset = 0
        var section: [Unit] = []
        var sectionPage: Int?
        var sectionPath: [String] = []
        var sectionHasBody = false
        func flush() {
            drafts += pack(section, page: sectionPage, path: sectionPath, characters: characters)
            section.removeAll()
        }
        for block in document.blocks {
            let length = block.text.count
            let isHeading: Bool
            let path: [String]
            if block.kind == .term || block.kind.isHeading {
                isHeading = true
                path = block.headingPath + [block.text.trimmingCharacters(in: .whitespacesAndNewlines)]
            } else {
                isHeading = false
                path = block.headingPath
            }
            let startsSection = section.isEmpty || isHeading || block.page != sectionPage || path != sectionPath
            if startsSection, !section.isEmpty {
                // A heading whose first content is a subsection or term of its own is no passage:
                // it stays in the path of the passages under it.
                let onlyLeadsIn = !sectionHasBody && block.page == sectionPage && path.count > sectionPath.count && path.starts(with: sectionPath)
                if onlyLeadsIn { section.removeAll() } else { flush() }
            }
            if section.isEmpty {
                sectionPage = block.page
                sectionPath = path
                sectionHasBody = false
            }
            if !isHeading { sectionHasBody = true }
            section += units(in: block.text, at: offset)
            offset += length + 2
        }
        if !section.isEmpty { flush() }
        return drafts
    }

    /// Sentences of a block, each within the limit, the last marked as a block end.
    func units(in text: String, at base: Int) -> [Unit] {
        var result: [Unit] = []
        var position = base
        for sentence in Self.sentences(in: text) {
            let length = sentence.count
            let tokens = counter.count(sentence)
            if tokens <= targetTokens {
                result.append(Unit(start: position, end: position + length, tokens: tokens, endsBlock: false))
            } else {
                result += split(sentence, at: position)
            }
            position += length
        }
        if !result.isEmpty { result[result.count - 1].endsBlock = true }
        // Leading and trailing whitespace does not belong in a passage.
        return result.compactMap { trim($0, in: text, base: base) }
    }

    /// Breaks an over-long sentence at spaces into pieces of at most the target size.
    private func split(_ sentence: String, at base: Int) -> [Unit] {
        var result: [Unit] = []
        var pieceStart = 0
        var piece = ""
        var position = 0
        for word in sentence.split(separator: " ", omittingEmptySubsequences: false) {
            let candidate = piece.isEmpty ? String(word) : piece + " " + word
            if !piece.isEmpty, counter.count(candidate) > targetTokens {
                result.append(Unit(start: base + pieceStart, end: base + position - 1, tokens: counter.count(piece), endsBlock: false))
                pieceStart = position
                piece = String(word)
            } else {
                piece = candidate
            }
            position += word.count + 1
        }
        if !piece.isEmpty {
            // A single "word" longer than the target (a URL, a run of symbols) is cut by characters.
            var start = base + pieceStart
            var rest = Substring(piece)
            while counter.count(String(rest)) > targetTokens, rest.count > 1 {
                var take = rest.count / 2
                while take > 1, counter.count(String(rest.prefix(take))) > targetTokens { take /= 2 }
                result.append(Unit(start: start, end: start + take, tokens: counter.count(String(rest.prefix(take))), endsBlock: false))
                start += take
                rest = rest.dropFirst(take)
            }
            result.append(Unit(start: start, end: start + rest.count, tokens: counter.count(String(rest)), endsBlock: false))
        }
        return result
    }

    private func trim(_ unit: Unit, in text: String, base: Int) -> Unit? {
        let characters = Array(text)
        var start = unit.start - base
        var end = unit.end - base
        while start < end, characters[start].isWhitespace { start += 1 }
        while end > start, characters[end - 1].isWhitespace { end -= 1 }
        guard start < end else { return nil }
        return Unit(start: base + start, end: base + end, tokens: unit.tokens, endsBlock: unit.endsBlock)
    }

    /// Packs a section's units into passages near the target size, with overlap.
    private func pack(_ units: [Unit], page: Int?, path: [String], characters: [Character]) -> [ChunkDraft] {
        var drafts: [ChunkDraft] = []
        var first = 0
        while first < units.count {
            var last = first
            var tokens = units[first].tokens
            while last + 1 < units.count, tokens + units[last + 1].tokens <= targetTokens {
                last += 1
                tokens += units[last].tokens
            }
            // Prefer ending at a paragraph end, if that keeps at least 70 % of the passage.
            if last + 1 < units.count, !units[last].endsBlock,
               let boundary = (first..<last).last(where: { units[$0].endsBlock }),
               units[first...boundary].reduce(0, { $0 + $1.tokens }) >= targetTokens * 7 / 10 {
                last = boundary
            }
            // Joining adds separators and merges across boundaries: check the real count.
            var text = String(characters[units[first].start..<units[last].end])
            var count = counter.count(text)
            while count > limitTokens, last > first {
                last -= 1
                text = String(characters[units[first].start..<units[last].end])
                count = counter.count(text)
            }
            drafts.append(ChunkDraft(text: text, tokenCount: count, page: page, headingPath: path, startOffset: units[first].start, endOffset: units[last].end))
            guard last + 1 < units.count else { break }
            // The next passage starts with the last sentences of this one, up to the overlap.
            var next = last + 1
            var overlap = 0
            while next - 1 > first, overlap + units[next - 1].tokens <= overlapTokens {
                next -= 1
                overlap += units[next].tokens
            }
            first = next
        }
        return drafts
    }

    /// Sentences with their trailing spaces, so they concatenate back to the text.
    static func sentences(in text: String) -> [String] {
        SentenceSplitter.sentences(in: text)
    }
}
