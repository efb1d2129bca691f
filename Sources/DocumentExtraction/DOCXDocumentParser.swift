import Foundation
import SibylCore
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads `word/document.xml`: paragraphs with their style's role, list items, and table rows.
final class DOCXDocumentParser: NSObject, XMLParserDelegate {
    private let styles: DOCXStyles
    private(set) var collector = BlockCollector()
    /// The first paragraph in the Title style.
    private(set) var titleParagraph: String?
    private(set) var cancelled = false

    private struct Paragraph {
        var text = ""
        var styleID: String?
        var numbered = false
        var outlineLevel: Int?
    }

    /// Open paragraphs: more than one when a text box sits inside a paragraph.
    private var paragraphs: [Paragraph] = []
    private var inText = false
    private var inProperties = 0
    private var skipping = 0
    private var tableDepth = 0
    private var cells: [String] = []
    private var cell: String?
    private var elementCount = 0

    /// Subtrees whose content is not the document's current text: compatibility fallbacks (which
    /// repeat a text box's content) and tracked changes to properties (which hold old styles).
    private static let skipped: Set<String> = ["Fallback", "pPrChange", "rPrChange", "tblPrChange", "trPrChange", "tcPrChange", "sectPrChange", "del"]

    init(styles: DOCXStyles) {
        self.styles = styles
    }

    /// Parses the part; throws `corruptDOCX` when it is not well-formed XML.
    func parse(_ data: Data, path: String) throws {
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = true
        parser.delegate = self
        let succeeded = parser.parse()
        if cancelled { throw CancellationError() }
        // FoundationXML on Linux can return true after a fatal error, so the error is checked too;
        // namespace errors (libxml2's 2xx codes) do not stop parsing and are tolerated.
        let code = (parser.parserError as NSError?)?.code
        guard succeeded, code.map({ (200..<300).contains($0) }) ?? true else {
            throw ExtractionError.corruptDOCX("\(path) is not well-formed XML (line \(parser.lineNumber))")
        }
    }

    func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        elementCount += 1
        if elementCount.isMultiple(of: 8192), Task.isCancelled {
            cancelled = true
            parser.abortParsing()
            return
        }
        if skipping > 0 || Self.skipped.contains(element) {
            if Self.skipped.contains(element) { skipping += 1 }
            return
        }
        switch element {
        case "p": paragraphs.append(Paragraph())
        case "pPr", "rPr", "tblPr", "trPr", "tcPr", "sectPr": inProperties += 1
        case "pStyle": if inProperties > 0, !paragraphs.isEmpty { paragraphs[paragraphs.count - 1].styleID = attributes.localValue("val") }
        case "numPr": if !paragraphs.isEmpty { paragraphs[paragraphs.count - 1].numbered = true }
        case "numId": if attributes.localValue("val") == "0", !paragraphs.isEmpty { paragraphs[paragraphs.count - 1].numbered = false }
        case "outlineLvl": if !paragraphs.isEmpty { paragraphs[paragraphs.count - 1].outlineLevel = attributes.localValue("val").flatMap(Int.init) }
        case "t": inText = true
        case "tab": if inProperties == 0 { appendText("\t") }
        case "br", "cr": if inProperties == 0 { appendText(attributes.localValue("type") == "page" ? " " : "\n") }
        case "noBreakHyphen": appendText("-")
        case "tbl":
            tableDepth += 1
        case "tr": if tableDepth == 1 { cells = [] }
        case "tc": if tableDepth == 1 { cell = "" }
        default: break
        }
    }

    func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
        if skipping > 0 {
            if Self.skipped.contains(element) { skipping -= 1 }
            return
        }
        switch element {
        case "t": inText = false
        case "pPr", "rPr", "tblPr", "trPr", "tcPr", "sectPr": inProperties = max(0, inProperties - 1)
        case "p":
            guard let paragraph = paragraphs.popLast() else { return }
            finish(paragraph)
        case "tc":
            if tableDepth == 1, let text = cell {
                cells.append(text.trimmingWhitespace())
                cell = nil
            }
        case "tr":
            if tableDepth == 1 {
                let filled = cells.filter { !$0.isEmpty }
                if !filled.isEmpty { collector.add(.table, filled.joined(separator: " | ")) }
                cells = []
            }
        case "tbl": tableDepth = max(0, tableDepth - 1)
        default: break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if inText, skipping == 0 { appendText(string) }
    }

    private func appendText(_ text: String) {
        guard !paragraphs.isEmpty else { return }
        paragraphs[paragraphs.count - 1].text += text
    }

    private func finish(_ paragraph: Paragraph) {
        let text = paragraph.text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingWhitespace() }.joined(separator: "\n")
        if tableDepth > 0, paragraphs.isEmpty {
            // Paragraphs in a table cell make up the cell's text.
            guard !text.isEmpty else { return }
            cell = (cell.map { $0.isEmpty ? "" : $0 + " " } ?? "") + text
            return
        }
        let role: DOCXStyles.Role
        if let level = paragraph.outlineLevel, level < 9 {
            role = .heading(level + 1)
        } else {
            role = styles.role(of: paragraph.styleID)
        }
        switch role {
        case .title:
            if titleParagraph == nil, !text.isEmpty { titleParagraph = text }
            collector.add(.heading(level: 1), text)
        case .heading(let level): collector.add(.heading(level: level), text)
        case .listItem: collector.add(.listItem, text)
        case .body: collector.add(paragraph.numbered ? .listItem : .paragraph, text)
        }
    }
}
