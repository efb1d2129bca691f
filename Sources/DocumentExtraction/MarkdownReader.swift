import SibylCore

/// Markdown (CommonMark's block structure, simplified): ATX and setext headings, lists, fenced and
/// indented code, block quotes, pipe tables and paragraphs. Inline markup is reduced to its text.
struct MarkdownReader {
    private var collector = BlockCollector()
    private var pending: [Substring] = []
    private var pendingKind: DocumentBlock.Kind = .paragraph
    private var fence: (character: Character, length: Int, indent: Int)?
    private var indentedCode = false
    private var code: [Substring] = []
    private(set) var frontMatterTitle: String?

    /// The blocks of a Markdown document and its title (front matter `title:`, else the first heading).
    static func read(_ text: String) throws -> (blocks: [DocumentBlock], title: String?) {
        var reader = MarkdownReader()
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)[...]
        reader.skipFrontMatter(&lines)
        var count = 0
        for line in lines {
            count += 1
            if count.isMultiple(of: 4096) { try Task.checkCancellation() }
            reader.consume(line)
        }
        reader.flush()
        reader.flushCode()
        return (reader.collector.blocks, reader.frontMatterTitle ?? reader.collector.firstHeading)
    }

    private mutating func skipFrontMatter(_ lines: inout ArraySlice<Substring>) {
        guard lines.first?.trimmingWhitespace() == "---",
              let end = lines.dropFirst().firstIndex(where: { ["---", "..."].contains($0.trimmingWhitespace()) }) else { return }
        for line in lines[(lines.startIndex + 1)..<end] where line.hasPrefix("title:") {
            let value = line.dropFirst(6).trimmingWhitespace()
            frontMatterTitle = value.trimmingCharacters(in: ["\"", "'"]).trimmingWhitespace()
        }
        lines = lines[(end + 1)...]
    }

    private mutating func consume(_ line: Substring) {
        let indent = Self.indentation(of: line)
        let content = line.drop { $0 == " " || $0 == "\t" }

        if let open = fence {
            let run = content.prefix { $0 == open.character }
            if indent < 4, run.count >= open.length, content.dropFirst(run.count).allSatisfy(\.isWhitespace) {
                flushCode()
            } else {
                code.append(Self.removingIndentation(line, upTo: open.indent))
            }
            return
        }
        if indentedCode {
            if indent >= 4 || content.isEmpty {
                code.append(Self.removingIndentation(line, upTo: 4))
                return
            }
            flushCode()
        }
        if content.isEmpty {
            flush()
            return
        }
        if indent >= 4 {
            if pending.isEmpty {
                indentedCode = true
                code.append(Self.removingIndentation(line, upTo: 4))
            } else {
                pending.append(content)
            }
            return
        }
        if let first = content.first, first == "`" || first == "~" {
            let run = content.prefix { $0 == first }
            if run.count >= 3, !(first == "`" && content.dropFirst(run.count).contains("`")) {
                flush()
                fence = (first, run.count, indent)
                return
            }
        }
        if content.first == "#", let heading = Self.atxHeading(content) {
            flush()
            collector.add(.heading(level: heading.level), Self.inlineText(heading.text))
            return
        }
        if !pending.isEmpty, pendingKind == .paragraph, let level = Self.setextLevel(content) {
            let text = pending.map { $0.trimmingWhitespace() }.joined(separator: " ")
            pending.removeAll()
            collector.add(.heading(level: level), Self.inlineText(text))
            return
        }
        if Self.isThematicBreak(content) {
            flush()
            return
        }
        if content.first == ">" {
            if pendingKind != .quote { flush() }
            pendingKind = .quote
            let quoted = content.dropFirst().drop { $0 == " " }
            if quoted.isEmpty { flush(); pendingKind = .quote } else { pending.append(quoted) }
            return
        }
        if let item = Self.listItem(content) {
            flush()
            pendingKind = .listItem
            pending.append(item)
            return
        }
        if content.first == "|" {
            flush()
            if let row = Self.tableRow(content) { collector.add(.table, row) }
            return
        }
        if pending.isEmpty { pendingKind = .paragraph }
        pending.append(content)
    }

    private mutating func flush() {
        guard !pending.isEmpty else { return }
        collector.add(pendingKind, Self.inlineText(pending.map { $0.trimmingWhitespace() }.joined(separator: " ")))
        pending.removeAll()
        pendingKind = .paragraph
    }

    private mutating func flushCode() {
        if !code.isEmpty { collector.add(.code, code.joined(separator: "\n")) }
        code.removeAll()
        fence = nil
        indentedCode = false
    }

    // MARK: Line classification

    static func indentation(of line: Substring) -> Int {
        var width = 0
        for character in line {
            if character == " " { width += 1 } else if character == "\t" { width += 4 - width % 4 } else { break }
        }
        return width
    }

    static func removingIndentation(_ line: Substring, upTo limit: Int) -> Substring {
        var width = 0
        var index = line.startIndex
        while index < line.endIndex, width < limit, line[index] == " " || line[index] == "\t" {
            width += line[index] == "\t" ? 4 - width % 4 : 1
            index = line.index(after: index)
        }
        return line[index...]
    }

    static func atxHeading(_ content: Substring) -> (level: Int, text: Substring)? {
        let hashes = content.prefix { $0 == "#" }
        guard (1...6).contains(hashes.count) else { return nil }
        let rest = content.dropFirst(hashes.count)
        guard rest.isEmpty || rest.first == " " || rest.first == "\t" else { return nil }
        var text = rest.trimmingWhitespace()[...]
        // A closing run of #s goes, when a space separates it from the text.
        let closing = text.reversed().prefix { $0 == "#" }.count
        if closing > 0 {
            let before = text.dropLast(closing)
            if before.isEmpty || before.last == " " { text = before }
        }
        return (hashes.count, text)
    }

    static func setextLevel(_ content: Substring) -> Int? {
        let trimmed = content.trimmingWhitespace()
        guard let first = trimmed.first, first == "=" || first == "-", trimmed.allSatisfy({ $0 == first }) else { return nil }
        return first == "=" ? 1 : 2
    }

    static func isThematicBreak(_ content: Substring) -> Bool {
        guard let first = content.first, "*-_".contains(first) else { return false }
        var count = 0
        for character in content {
            if character == first { count += 1 } else if character != " " && character != "\t" { return false }
        }
        return count >= 3
    }

    /// The item's text when the line opens a list item (`-`, `*`, `+`, `1.`, `1)`).
    static func listItem(_ content: Substring) -> Substring? {
        if let first = content.first, "-*+".contains(first) {
            let rest = content.dropFirst()
            guard let space = rest.first, space == " " || space == "\t" else { return nil }
            return rest.drop { $0 == " " || $0 == "\t" }
        }
        let digits = content.prefix { $0.isASCII && $0.isNumber }
        guard (1...9).contains(digits.count) else { return nil }
        let rest = content.dropFirst(digits.count)
        guard let marker = rest.first, marker == "." || marker == ")" else { return nil }
        let after = rest.dropFirst()
        guard let space = after.first, space == " " || space == "\t" else { return nil }
        return after.drop { $0 == " " || $0 == "\t" }
    }

    /// A pipe-table row as `cell | cell`, or nil for the delimiter row.
    static func tableRow(_ content: Substring) -> String? {
        var cells = content.trimmingWhitespace().split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingWhitespace() }
        if cells.first?.isEmpty == true { cells.removeFirst() }
        if cells.last?.isEmpty == true { cells.removeLast() }
        if cells.allSatisfy({ $0.allSatisfy { "-: ".contains($0) } }) { return nil }
        return cells.map { inlineText($0[...]) }.joined(separator: " | ")
    }

    // MARK: Inline markup

    /// The visible text of inline Markdown: links and images become their text, emphasis markers
    /// (`**`, `__`, `~~`) and code backticks are dropped.
    static func inlineText<S: StringProtocol>(_ text: S) -> String {
        guard text.contains(where: { "[*_`~!<\\".contains($0) }) else { return String(text) }
        var output = ""
        output.reserveCapacity(text.utf8.count)
        let characters = Array(text)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            switch character {
            case "\\" where index + 1 < characters.count && (characters[index + 1].isPunctuation || characters[index + 1].isSymbol):
                output.append(characters[index + 1])
                index += 2
                continue
            case "!" where index + 1 < characters.count && characters[index + 1] == "[":
                index += 1
                continue
            case "[":
                if let (label, next) = link(in: characters, at: index) {
                    output += inlineText(String(label))
                    index = next
                    continue
                }
            case "*", "_", "~":
                if index + 1 < characters.count, characters[index + 1] == character {
                    index += 2
                    continue
                }
            case "`":
                // A code span keeps its content verbatim.
                var run = 0
                while index + run < characters.count, characters[index + run] == "`" { run += 1 }
                if let end = closingRun(of: run, in: characters, from: index + run) {
                    output += String(characters[(index + run)..<end]).trimmingWhitespace()
                    index = end + run
                } else {
                    output += String(repeating: "`", count: run)
                    index += run
                }
                continue
            default:
                break
            }
            output.append(character)
            index += 1
        }
        return output
    }

    /// The index of the next run of exactly `length` backticks.
    private static func closingRun(of length: Int, in characters: [Character], from start: Int) -> Int? {
        var index = start
        while index < characters.count {
            guard characters[index] == "`" else { index += 1; continue }
            var run = 0
            while index + run < characters.count, characters[index + run] == "`" { run += 1 }
            if run == length { return index }
            index += run
        }
        return nil
    }

    /// `[label](target)` or `[label][ref]` starting at `start`: the label and the index after the link.
    private static func link(in characters: [Character], at start: Int) -> (ArraySlice<Character>, Int)? {
        var depth = 0
        var index = start
        while index < characters.count {
            if characters[index] == "[" { depth += 1 }
            if characters[index] == "]" { depth -= 1; if depth == 0 { break } }
            index += 1
        }
        guard index < characters.count, index + 1 < characters.count else { return nil }
        let label = characters[(start + 1)..<index]
        let close: Character
        switch characters[index + 1] {
        case "(": close = ")"
        case "[": close = "]"
        default: return nil
        }
        guard let end = characters[(index + 2)...].firstIndex(of: close) else { return nil }
        return (label, end + 1)
    }
}
