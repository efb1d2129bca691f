import SibylCore

/// Rebuilds paragraphs from laid-out lines (a PDF page's text layer, OCR output), where a line
/// break is usually just the edge of the column.
///
/// Reading each line's position would cost a second layout pass over the page, so the breaks are
/// guessed from the text alone: a blank line, a line that opens a list item, a line much shorter
/// than the page's full lines, or a shortish line that ends a sentence all end a paragraph.
enum LineParagraphs {
    struct Paragraph: Equatable {
        var kind: DocumentBlock.Kind
        var text: String
    }

    static func split(_ text: String, dropPageNumbers: Bool = false) -> [Paragraph] {
        var lines = Self.lines(of: text)
        if dropPageNumbers { removePageNumbers(&lines) }
        let widths = lines.map { $0.unicodeScalars.count }
        let fullWidth = typicalWidth(widths)
        var paragraphs: [Paragraph] = []
        var current = ""
        var kind = DocumentBlock.Kind.paragraph

        func flush() {
            if !current.isEmpty { paragraphs.append(Paragraph(kind: kind, text: current)) }
            current = ""
            kind = .paragraph
        }

        for (rawLine, rawWidth) in zip(lines, widths) {
            var line = rawLine.drop { $0 == " " || $0 == "\t" }
            if line.isEmpty {
                flush()
                continue
            }
            if let item = listItemText(line) {
                flush()
                kind = .listItem
                line = item
            }
            append(line, to: &current)
            let width = rawWidth - (rawLine.utf8.count - line.utf8.count)
            if line.last == "-" || line.last == "\u{AD}" { continue }
            if Double(width) < 0.6 * Double(fullWidth) || (Double(width) < 0.85 * Double(fullWidth) && endsSentence(line)) {
                flush()
            }
        }
        flush()
        return paragraphs
    }

    /// Joins a line to the paragraph, closing a word hyphenated across the break.
    static func append(_ line: Substring, to paragraph: inout String) {
        guard let last = paragraph.unicodeScalars.last else {
            paragraph += line
            return
        }
        if last == "\u{AD}" {
            paragraph.unicodeScalars.removeLast()
            paragraph += line
        } else if last == "-", let before = paragraph.unicodeScalars.dropLast().last, before.properties.isLowercase,
                  let next = line.unicodeScalars.first, next.properties.isLowercase {
            paragraph.unicodeScalars.removeLast()
            paragraph += line
        } else {
            paragraph += " "
            paragraph += line
        }
    }

    /// The lines of `text` without trailing white space, split on the UTF-8 bytes (a page's worth of
    /// grapheme breaking would cost more than the rest of this together).
    static func lines(of text: String) -> [Substring] {
        var lines: [Substring] = []
        let utf8 = text.utf8
        var start = utf8.startIndex
        while let newline = utf8[start...].firstIndex(of: 0x0A) {
            lines.append(text[start..<newline].trimmingTrailingWhitespaceSlice())
            start = utf8.index(after: newline)
        }
        lines.append(text[start...].trimmingTrailingWhitespaceSlice())
        return lines
    }

    /// The length (in characters) of the page's full lines: the 80th percentile of its line lengths.
    static func typicalWidth(_ lineWidths: [Int]) -> Int {
        var widths = lineWidths.filter { $0 > 0 }
        guard !widths.isEmpty else { return 0 }
        widths.sort()
        return widths[(widths.count - 1) * 4 / 5]
    }

    static func endsSentence(_ line: Substring) -> Bool {
        var scalars = line.unicodeScalars[...]
        while let last = scalars.last, "\"'”’)]»".unicodeScalars.contains(last) { scalars = scalars.dropLast() }
        guard let last = scalars.last else { return false }
        return ".!?:;。！？".unicodeScalars.contains(last)
    }

    /// The text after a bullet or number that opens a list item, or nil.
    static func listItemText(_ line: Substring) -> Substring? {
        guard let first = line.unicodeScalars.first else { return nil }
        if "•◦▪▫‣∙●○■□➢►–—*-".unicodeScalars.contains(first) {
            let rest = line.unicodeScalars.dropFirst()
            guard let space = rest.first, space == " " || space == "\t" || space == "\u{A0}" else { return nil }
            return Substring(rest).drop { $0.isWhitespace }
        }
        // 1. 2) (a) a)
        var rest = line.utf8[...]
        let parenthesised = rest.first == UInt8(ascii: "(")
        if parenthesised { rest = rest.dropFirst() }
        let label = rest.prefix { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
        guard !label.isEmpty, label.count <= 3, label.allSatisfy({ (0x30...0x39).contains($0) }) || label.count == 1 else { return nil }
        rest = rest.dropFirst(label.count)
        guard let marker = rest.first, marker == UInt8(ascii: ")") || (marker == UInt8(ascii: ".") && !parenthesised) else { return nil }
        rest = rest.dropFirst()
        guard let space = rest.first, space == UInt8(ascii: " ") || space == UInt8(ascii: "\t") else { return nil }
        let text = Substring(rest).drop { $0.isWhitespace }
        return text.isEmpty ? nil : text
    }

    /// Drops a bare page number heading or footing the page.
    static func removePageNumbers(_ lines: inout [Substring]) {
        func isPageNumber(_ line: Substring) -> Bool {
            let trimmed = line.trimmingWhitespace()
            guard !trimmed.isEmpty, trimmed.count <= 6 else { return false }
            return trimmed.allSatisfy { $0.isASCII && $0.isNumber }
        }
        while let last = lines.last, last.allSatisfy(\.isWhitespace) { lines.removeLast() }
        if let last = lines.last, isPageNumber(last) { lines.removeLast() }
        while let first = lines.first, first.allSatisfy(\.isWhitespace) { lines.removeFirst() }
        if let first = lines.first, isPageNumber(first) { lines.removeFirst() }
    }
}

extension Substring {
    func trimmingTrailingWhitespaceSlice() -> Substring {
        let scalars = unicodeScalars
        var end = scalars.endIndex
        while end > scalars.startIndex {
            let previous = scalars.index(before: end)
            guard scalars[previous].properties.isWhitespace else { break }
            end = previous
        }
        return Substring(scalars[scalars.startIndex..<end])
    }
}
