import SibylCore

/// Reads the text and structure of an HTML page without a DOM: headings, paragraphs, list items,
/// defined terms, preformatted code, quotes and table rows, in document order. A definition
/// list's term (`dt`: an API signature, a glossary word) heads what describes it: those blocks
/// have it at the end of their heading path. Tolerant of unclosed and stray tags;
/// scripts, styles and page chrome (`nav`, `header`, `footer`, and any element whose ARIA role
/// marks it as navigation, banner, contentinfo or search) are left out.
struct HTMLReader {
    private var collector = BlockCollector()
    private var stack: [String] = []
    /// Stack depths of the open elements whose content is left out (by name, or by their ARIA role).
    private var skippedDepths: [Int] = []
    private var skipping: Bool { !skippedDepths.isEmpty }
    private var buffer = ""
    private var pendingSpace = false
    private var cells: [String] = []
    private var title: String?
    /// Open defined terms (`dt`), each with the stack depth of its `dl`: what follows in that list
    /// sits under them, as under a heading (a nested list's terms under its outer one's).
    private var terms: [(depth: Int, text: String)] = []

    static let skippedElements: Set<String> = ["script", "style", "nav", "header", "footer", "noscript", "template", "svg", "textarea", "select", "button"]
    static let voidElements: Set<String> = ["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr", "keygen"]
    static let blockElements: Set<String> = [
        "address", "article", "aside", "blockquote", "body", "caption", "center", "dd", "details", "dialog", "dir", "div", "dl", "dt",
        "fieldset", "figcaption", "figure", "form", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "html", "li", "main", "menu", "ol",
        "p", "pre", "section", "summary", "table", "tbody", "thead", "tfoot", "tr", "td", "th", "ul", "legend", "hgroup",
    ]
    /// Block elements whose start closes an open `<p>`, as in HTML's parsing rules.
    static let closesParagraph: Set<String> = [
        "address", "article", "aside", "blockquote", "details", "div", "dl", "fieldset", "figcaption", "figure", "footer", "form",
        "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "main", "menu", "nav", "ol", "p", "pre", "section", "table", "ul",
    ]

    /// The blocks of an HTML document and its title (`<title>`, else the first heading).
    static func read(_ html: String) throws -> (blocks: [DocumentBlock], title: String?) {
        var reader = HTMLReader()
        var tokenizer = HTMLTokenizer(html)
        var count = 0
        while let token = tokenizer.next() {
            count += 1
            if count.isMultiple(of: 4096) { try Task.checkCancellation() }
            reader.handle(token)
        }
        reader.closeAll()
        return (reader.collector.blocks, Self.documentTitle(title: reader.title, firstHeading: reader.collector.firstHeading))
    }

    /// The page's `title`, less a site's suffix: when the title is the first heading followed by
    /// more ("math — Mathematical functions — Python 3.11.2 documentation"), the heading. The
    /// suffix names the site, not the page, and a small model answering from a passage took the
    /// version in it for the answer.
    static func documentTitle(title: String?, firstHeading: String?) -> String? {
        guard let title, !title.isEmpty else { return firstHeading }
        guard let heading = firstHeading, heading.count >= 3, title.count > heading.count, title.hasPrefix(heading) else { return title }
        let rest = title.dropFirst(heading.count)
        // Only a separated suffix: "Tea — Site", not "Tea & Coffee" under a heading "Tea".
        guard let first = rest.first, [" ", "|", "-", "–", "—", ":", "·"].contains(first),
              rest.trimmingCharacters(in: .whitespaces).first.map({ "|-–—:·".contains($0) }) == true else { return title }
        return heading
    }

    private mutating func handle(_ token: HTMLTokenizer.Token) {
        switch token {
        case .text(let text):
            let decoded = HTMLEntities.decode(text)
            // A lone pilcrow inside a link is a permalink anchor (Sphinx, MkDocs …), not text.
            if !skipping, !(stack.last == "a" && decoded.trimmingCharacters(in: .whitespacesAndNewlines) == "¶") { append(decoded) }
        case .rawText(let text):
            // Only `title` of the raw-text elements carries readable text; the rest are skipped.
            if stack.last == "title", !skipping, title == nil {
                title = Self.collapsingWhitespace(HTMLEntities.decode(text))
            }
        case .startTag(let name, let selfClosing, let landmark):
            start(name, selfClosing: selfClosing, landmark: landmark)
        case .endTag(let name):
            end(name)
        }
    }

    private mutating func start(_ name: String, selfClosing: Bool, landmark: Bool = false) {
        if skipping {
            if !Self.voidElements.contains(name), !selfClosing { push(name, landmark: landmark) }
            return
        }
        if name == "br" {
            if isInCell || !isInPreformatted { lineBreak() } else { buffer += "\n" }
            return
        }
        // Implied end tags.
        if Self.closesParagraph.contains(name) { closeOpen(["p"], within: ["table", "td", "th", "caption", "button", "template", "html"]) }
        switch name {
        case "li": closeOpen(["li"], within: ["ul", "ol", "menu", "table"])
        case "dt", "dd": closeOpen(["dt", "dd"], within: ["dl", "table"])
        case "tr": closeOpen(["tr"], within: ["table"])
        case "td", "th": closeOpen(["td", "th"], within: ["tr", "table"])
        case "h1", "h2", "h3", "h4", "h5", "h6":
            if let open = stack.last, Self.headingLevel(open) != nil { pop() }
        default: break
        }
        if Self.blockElements.contains(name) || name == "nav" || name == "header" || name == "footer" { boundary() }
        if Self.voidElements.contains(name) || selfClosing { return }
        push(name, landmark: landmark)
    }

    /// Opens an element; page chrome starts a stretch whose content is left out.
    private mutating func push(_ name: String, landmark: Bool) {
        stack.append(name)
        if landmark || Self.skippedElements.contains(name) { skippedDepths.append(stack.count) }
    }

    private mutating func end(_ name: String) {
        guard stack.contains(name) else {
            if name == "p", !skipping { boundary() }
            return
        }
        while let last = stack.last {
            pop()
            if last == name { break }
        }
    }

    /// Pops the innermost open element, ending what it delimits.
    private mutating func pop() {
        guard let name = stack.last else { return }
        if skipping {
            if skippedDepths.last == stack.count { skippedDepths.removeLast() }
            stack.removeLast()
            return
        }
        switch name {
        case "td", "th":
            cells.append(Self.collapsingWhitespace(buffer))
            clearBuffer()
        case "tr":
            if isInCell, !buffer.allSatisfy(\.isWhitespace) { cells.append(Self.collapsingWhitespace(buffer)) }
            clearBuffer()
            emitRow()
        case "table":
            emitRow()
            boundary()
        default:
            if Self.blockElements.contains(name) { boundary() }
        }
        if name == "dl" { terms.removeAll { $0.depth >= stack.count } }
        stack.removeLast()
    }

    /// Closes an open element named in `names` when no element in `scope` lies between it and the top.
    private mutating func closeOpen(_ names: Set<String>, within scope: Set<String>) {
        for element in stack.reversed() {
            if scope.contains(element) { return }
            if names.contains(element) {
                while let last = stack.last {
                    pop()
                    if last == element { return }
                }
            }
        }
    }

    private mutating func closeAll() {
        while !stack.isEmpty { pop() }
        boundary()
        emitRow()
    }

    // MARK: Text

    private var isInPreformatted: Bool { stack.contains("pre") || stack.contains("listing") }

    /// Whether text goes into a table cell (a `td`/`th`, or a row without one).
    private var isInCell: Bool {
        for element in stack.reversed() {
            if element == "td" || element == "th" || element == "tr" { return true }
            if element == "table" { return false }
        }
        return false
    }

    private mutating func append(_ text: String) {
        if isInPreformatted && !isInCell {
            var text = text[...]
            // A newline just after <pre> is not content.
            if buffer.isEmpty, text.first == "\n", stack.last == "pre" { text = text.dropFirst() }
            buffer += text
            return
        }
        for character in text {
            if character.isWhitespace {
                pendingSpace = true
            } else {
                if pendingSpace, let last = buffer.last, last != "\n" { buffer.append(" ") }
                pendingSpace = false
                buffer.append(character)
            }
        }
    }

    private mutating func lineBreak() {
        if isInCell { pendingSpace = true; return }
        if !buffer.isEmpty { buffer.append("\n") }
        pendingSpace = false
    }

    private mutating func clearBuffer() {
        buffer = ""
        pendingSpace = false
    }

    /// Ends the current block: what has been gathered becomes a block of the kind its context makes.
    private mutating func boundary() {
        if isInCell {
            pendingSpace = true
            return
        }
        defer { clearBuffer() }
        guard !buffer.isEmpty else { return }
        var kind = DocumentBlock.Kind.paragraph
        for element in stack.reversed() {
            if let level = Self.headingLevel(element) { kind = .heading(level: level); break }
            if element == "pre" || element == "listing" { kind = .code; break }
            if element == "dt" { kind = .term; break }
            if element == "li" || element == "dd" { kind = .listItem; break }
            if element == "blockquote" { kind = .quote; break }
        }
        let text = kind == .code ? buffer : buffer.split(separator: "\n").map { $0.trimmingWhitespace() }.joined(separator: "\n")
        if kind == .term {
            let depth = (stack.lastIndex(of: "dl") ?? -1) + 1
            let trimmed = Self.collapsingWhitespace(text)
            if let last = terms.last, last.depth == depth, collector.blocks.last?.kind == .term, !trimmed.isEmpty {
                // Terms in a row share their description (a function's overloads): one heading.
                collector.extendLastBlock(with: "\n" + trimmed)
                terms[terms.count - 1].text += " / " + trimmed
                return
            }
            // A term replaces the one before it in its list.
            terms.removeAll { $0.depth >= depth }
            collector.add(kind, text, terms: terms.map(\.text))
            if !trimmed.isEmpty { terms.append((depth, trimmed)) }
        } else {
            collector.add(kind, text, terms: terms.map(\.text))
        }
    }

    private mutating func emitRow() {
        let filled = cells.filter { !$0.isEmpty }
        if !filled.isEmpty { collector.add(.table, filled.joined(separator: " | ")) }
        cells.removeAll()
    }

    static func headingLevel(_ name: String) -> Int? {
        guard name.count == 2, name.first == "h", let digit = name.last?.wholeNumberValue, (1...6).contains(digit) else { return nil }
        return digit
    }

    static func collapsingWhitespace(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
