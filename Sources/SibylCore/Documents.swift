import Foundation

/// A document's text as extracted, in reading order, with the structure chunking needs.
public struct ExtractedDocument: Sendable, Hashable {
    /// The file format it came from.
    public enum Format: String, Sendable, Hashable, Codable, CaseIterable {
        case text, markdown, html, pdf, docx, image
    }

    public var format: Format
    /// The title, when the document names one (HTML `<title>`, DOCX core title, first heading …).
    public var title: String?
    public var blocks: [DocumentBlock]
    /// Pages, for paginated formats (PDF); nil otherwise.
    public var pageCount: Int?
    /// Problems that did not stop extraction (a page that could not be OCR'd …), in words.
    public var warnings: [String]

    public init(format: Format, title: String? = nil, blocks: [DocumentBlock], pageCount: Int? = nil, warnings: [String] = []) {
        self.format = format
        self.title = title
        self.blocks = blocks
        self.pageCount = pageCount
        self.warnings = warnings
    }

    /// Mean OCR confidence over OCR'd blocks (0–100), or nil when nothing was OCR'd.
    public var ocrConfidence: Double? {
        let values = blocks.compactMap(\.ocrConfidence)
        return values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
    }
}

/// One structural piece of a document: a heading, a paragraph, a list item, a table row …
public struct DocumentBlock: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case heading(level: Int)
        case paragraph
        case listItem
        /// A defined term (HTML `dt`: a glossary word, an API signature) that the next blocks describe.
        case term
        case table
        case code
        case quote

        public var isHeading: Bool {
            if case .heading = self { return true }
            return false
        }
    }

    public var kind: Kind
    public var text: String
    /// 1-based page number, for paginated formats.
    public var page: Int?
    /// The headings this block sits under, outermost first (not including itself).
    public var headingPath: [String]
    /// Set when the text came from OCR (0–100).
    public var ocrConfidence: Double?

    public init(kind: Kind, text: String, page: Int? = nil, headingPath: [String] = [], ocrConfidence: Double? = nil) {
        self.kind = kind
        self.text = text
        self.page = page
        self.headingPath = headingPath
        self.ocrConfidence = ocrConfidence
    }
}

extension ExtractedDocument.Format {
    /// The format a file extension stands for (lower-case, without the dot), or nil when Sibyl does not read it.
    public init?(fileExtension: String) {
        switch fileExtension.lowercased() {
        case "txt", "text": self = .text
        case "md", "markdown": self = .markdown
        case "html", "htm", "xhtml": self = .html
        case "pdf": self = .pdf
        case "docx": self = .docx
        case "png", "jpg", "jpeg", "tif", "tiff": self = .image
        default: return nil
        }
    }

    /// Every file extension read, lower-case, without the dot.
    public static let readableExtensions: Set<String> = ["txt", "text", "md", "markdown", "html", "htm", "xhtml", "pdf", "docx", "png", "jpg", "jpeg", "tif", "tiff"]
}

/// Reads a file into structured text: the document extractor, or a stand-in in tests. Knowledge
/// ingests through this, so it links none of the readers (poppler, OCR) itself.
public protocol DocumentExtracting: Sendable {
    func extract(_ file: URL) async throws -> ExtractedDocument
}
