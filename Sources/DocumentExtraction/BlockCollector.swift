import SibylCore

/// Collects blocks in reading order and gives each the path of headings it sits under.
struct BlockCollector {
    private(set) var blocks: [DocumentBlock] = []
    /// Open headings, outermost first.
    private var headings: [(level: Int, text: String)] = []

    /// The first heading seen, a fallback title.
    var firstHeading: String? {
        for block in blocks { if case .heading = block.kind { return block.text } }
        return nil
    }

    /// Adds text to the last block.
    mutating func extendLastBlock(with text: String) {
        guard !blocks.isEmpty else { return }
        blocks[blocks.count - 1].text += text
    }

    /// Adds a block unless its text is blank; a heading closes the headings at its level and below.
    /// `terms` (open defined terms, outermost first) follow the headings in the block's path.
    mutating func add(_ kind: DocumentBlock.Kind, _ text: String, page: Int? = nil, ocrConfidence: Double? = nil, terms: [String] = []) {
        // Code keeps the indentation of its first line.
        let trimmed = kind == .code ? text.trimmingBlankLines() : text.trimmingWhitespace()
        guard !trimmed.isEmpty else { return }
        if case .heading(let level) = kind {
            while let last = headings.last, last.level >= level { headings.removeLast() }
            blocks.append(DocumentBlock(kind: kind, text: trimmed, page: page, headingPath: headings.map(\.text), ocrConfidence: ocrConfidence))
            headings.append((level, trimmed))
        } else {
            blocks.append(DocumentBlock(kind: kind, text: trimmed, page: page, headingPath: headings.map(\.text) + terms, ocrConfidence: ocrConfidence))
        }
    }
}

extension String {
    /// The text without leading and trailing white space; already-trimmed text is returned without a copy.
    func trimmingWhitespace() -> String {
        guard let first = unicodeScalars.first, let last = unicodeScalars.last,
              first.properties.isWhitespace || last.properties.isWhitespace else { return self }
        return self[...].trimmingWhitespace()
    }
}

extension StringProtocol {
    /// The text without leading and trailing white space (newlines included).
    func trimmingWhitespace() -> String {
        let scalars = Substring(self).unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
        return String(scalars[first...last])
    }

    /// The text without leading blank lines and trailing white space.
    func trimmingBlankLines() -> String {
        var lines = split(separator: "\n", omittingEmptySubsequences: false)
        while let first = lines.first, first.allSatisfy(\.isWhitespace) { lines.removeFirst() }
        while let last = lines.last, last.allSatisfy(\.isWhitespace) { lines.removeLast() }
        return lines.joined(separator: "\n").trimmingTrailingWhitespace()
    }

    /// The text without trailing white space.
    func trimmingTrailingWhitespace() -> String {
        let scalars = Substring(self).unicodeScalars
        guard let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[...last])
    }
}
