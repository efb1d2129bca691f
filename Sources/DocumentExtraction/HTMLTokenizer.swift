/// A forgiving HTML tokenizer: tags, text, and the raw content of `script`, `style`, `title` and
/// `textarea`. Comments, doctypes and processing instructions are dropped; a stray `<` is text.
///
/// It scans UTF-8 bytes: every delimiter in HTML is ASCII, and byte scanning avoids grapheme
/// breaking, which would dominate the time on large pages.
struct HTMLTokenizer {
    enum Token: Equatable {
        /// `landmark` is true for page chrome marked by its ARIA role (navigation, banner,
        /// contentinfo, search), such as the menus of Sphinx and MkDocs pages.
        case startTag(name: String, selfClosing: Bool, landmark: Bool = false)
        case endTag(name: String)
        case text(Substring)
        /// The unparsed content of a raw-text element (its start tag came just before).
        case rawText(Substring)
    }

    private let html: Substring
    private let bytes: Substring.UTF8View
    private var index: Substring.Index
    private var rawTextElement: String?

    static let rawTextElements: Set<String> = ["script", "style", "title", "textarea", "xmp"]

    private static let lessThan = UInt8(ascii: "<"), greaterThan = UInt8(ascii: ">"), slash = UInt8(ascii: "/")
    private static let bang = UInt8(ascii: "!"), question = UInt8(ascii: "?")
    private static let doubleQuote = UInt8(ascii: "\""), singleQuote = UInt8(ascii: "'")

    init(_ html: String) {
        self.html = html[...]
        self.bytes = self.html.utf8
        self.index = html.startIndex
    }

    mutating func next() -> Token? {
        if let element = rawTextElement {
            rawTextElement = nil
            let end = findClosing(element, from: index) ?? html.endIndex
            let content = html[index..<end]
            index = end
            return .rawText(content)
        }
        while index < bytes.endIndex, bytes[index] == Self.lessThan {
            let result = tag()
            if case .token(let token) = result { return token }
            if case .text = result { break }
        }
        guard index < bytes.endIndex else { return nil }
        // Text runs to the next `<` that opens something (a tag is tried there, else it is text).
        let start = index
        let after = bytes.index(after: index)
        index = bytes[after...].firstIndex(of: Self.lessThan) ?? bytes.endIndex
        return .text(html[start..<index])
    }

    private enum TagResult {
        case token(Token)
        /// A comment or declaration, passed over.
        case skipped
        /// The `<` is plain text; the index is unchanged.
        case text
    }

    /// Reads a tag, comment or declaration at `index`.
    private mutating func tag() -> TagResult {
        let afterOpen = bytes.index(after: index)
        guard afterOpen < bytes.endIndex else { return .text }
        let first = bytes[afterOpen]
        if first == Self.bang {
            let rest = bytes[afterOpen...]
            if rest.starts(with: "!--".utf8) {
                let bodyStart = bytes.index(afterOpen, offsetBy: 3)
                index = find("-->", from: bodyStart)?.upperBound ?? bytes.endIndex
                return .skipped
            }
            if rest.starts(with: "![CDATA[".utf8) {
                let bodyStart = bytes.index(afterOpen, offsetBy: 8)
                let end = find("]]>", from: bodyStart)
                index = end?.upperBound ?? bytes.endIndex
                return .token(.text(html[bodyStart..<(end?.lowerBound ?? bytes.endIndex)]))
            }
            skipPastTagEnd(from: afterOpen)
            return .skipped
        }
        if first == Self.question {
            skipPastTagEnd(from: afterOpen)
            return .skipped
        }
        let isEnd = first == Self.slash
        let nameStart = isEnd ? bytes.index(after: afterOpen) : afterOpen
        guard nameStart < bytes.endIndex, Self.isASCIILetter(bytes[nameStart]) else {
            if isEnd, nameStart < bytes.endIndex {
                // `</ …>` without a name is a bogus comment.
                skipPastTagEnd(from: nameStart)
                return .skipped
            }
            return .text
        }
        var cursor = nameStart
        while cursor < bytes.endIndex, !Self.endsName(bytes[cursor]) { cursor = bytes.index(after: cursor) }
        let name = html[nameStart..<cursor].lowercased()
        // Attributes are skipped, minding quotes (a quoted `>` does not end the tag).
        let attributesStart = cursor
        var quote: UInt8?
        var selfClosing = false
        while cursor < bytes.endIndex {
            let byte = bytes[cursor]
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == Self.doubleQuote || byte == Self.singleQuote {
                quote = byte
            } else if byte == Self.greaterThan {
                break
            } else if byte == Self.slash {
                selfClosing = true
            } else if !Self.isASCIIWhitespace(byte) {
                selfClosing = false
            }
            cursor = bytes.index(after: cursor)
        }
        index = cursor < bytes.endIndex ? bytes.index(after: cursor) : bytes.endIndex
        if isEnd { return .token(.endTag(name: name)) }
        if Self.rawTextElements.contains(name), !selfClosing { rawTextElement = name }
        return .token(.startTag(name: name, selfClosing: selfClosing, landmark: Self.hasChromeRole(html[attributesStart..<cursor])))
    }

    static let chromeRoles: Set<String> = ["navigation", "banner", "contentinfo", "search"]

    /// Whether attributes carry `role="navigation"` (or another chrome landmark role).
    static func hasChromeRole(_ attributes: Substring) -> Bool {
        guard attributes.utf8.count > 5 else { return false }
        let text = attributes.lowercased()
        var searchStart = text.startIndex
        while let found = text.range(of: "role", range: searchStart..<text.endIndex) {
            searchStart = found.upperBound
            // `role` as an attribute name: at the start or after whitespace, then `=`.
            if found.lowerBound > text.startIndex, !text[text.index(before: found.lowerBound)].isWhitespace { continue }
            var rest = text[found.upperBound...].drop(while: \.isWhitespace)
            guard rest.first == "=" else { continue }
            rest = rest.dropFirst().drop(while: \.isWhitespace)
            if let quote = rest.first, quote == "\"" || quote == "'" { rest = rest.dropFirst() }
            let value = rest.prefix { !($0 == "\"" || $0 == "'" || $0.isWhitespace || $0 == ">" || $0 == "/") }
            return chromeRoles.contains(String(value))
        }
        return false
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    private static func isASCIIWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }

    private static func endsName(_ byte: UInt8) -> Bool {
        isASCIIWhitespace(byte) || byte == greaterThan || byte == slash
    }

    private mutating func skipPastTagEnd(from start: Substring.Index) {
        if let found = bytes[start...].firstIndex(of: Self.greaterThan) {
            index = bytes.index(after: found)
        } else {
            index = bytes.endIndex
        }
    }

    /// The next occurrence of an ASCII `needle`, from `start` on.
    private func find(_ needle: String, from start: Substring.Index) -> Range<Substring.Index>? {
        let pattern = Array(needle.utf8)
        var cursor = start
        while let candidate = bytes[cursor...].firstIndex(of: pattern[0]) {
            if bytes[candidate...].starts(with: pattern) {
                return candidate..<bytes.index(candidate, offsetBy: pattern.count)
            }
            cursor = bytes.index(after: candidate)
        }
        return nil
    }

    /// Where `</name` (any case) starts, from `start` on.
    private func findClosing(_ name: String, from start: Substring.Index) -> Substring.Index? {
        var cursor = start
        let nameBytes = Array(name.utf8)
        while let open = bytes[cursor...].firstIndex(of: Self.lessThan) {
            var probe = bytes.index(after: open)
            if probe < bytes.endIndex, bytes[probe] == Self.slash {
                probe = bytes.index(after: probe)
                var matched = 0
                while matched < nameBytes.count, probe < bytes.endIndex, bytes[probe] | 0x20 == nameBytes[matched] {
                    matched += 1
                    probe = bytes.index(after: probe)
                }
                if matched == nameBytes.count, probe == bytes.endIndex || Self.endsName(bytes[probe]) { return open }
            }
            cursor = bytes.index(after: open)
        }
        return nil
    }
}
