public import Foundation
public import SibylCore

/// Why a file could not be read; each message says what was wrong and what to do about it.
public enum ExtractionError: Error, LocalizedError, Equatable, Sendable {
    /// The file holds no bytes.
    case emptyFile
    /// The file is bigger than the configured limit.
    case tooLarge(bytes: Int64, limit: Int64)
    /// A text format (`.txt`, `.md`, `.html`) whose bytes are not text.
    case binaryContent(fileExtension: String)
    /// Text that is neither UTF-8, UTF-16 with a byte-order mark, nor clearly Latin-1.
    case notValidUTF8
    /// A `.pdf` that poppler cannot read (or that is not a PDF at all).
    case corruptPDF(String)
    /// A PDF protected by a password.
    case encryptedPDF
    /// A `.docx` that is not a readable Word document.
    case corruptDOCX(String)
    /// A `.docx` whose contents expand past the limit or at a suspicious ratio (a zip bomb).
    case docxTooLarge(String)
    /// An image that the OCR engine could not read.
    case unreadableImage(String)
    /// OCR is needed but not available (turned off, or tesseract missing).
    case ocrUnavailable(String)
    /// A file extension Sibyl does not extract.
    case unsupportedExtension(String)
    /// The file could not be read from disk.
    case unreadableFile(String)
    /// A PDF with more pages than allowed.
    case tooManyPages(count: Int, limit: Int)
    /// Reading took longer than allowed (after `pagesRead` of `pageCount` pages).
    case tookTooLong(limit: Duration, pagesRead: Int, pageCount: Int)

    public var errorDescription: String? {
        switch self {
        case .emptyFile:
            "The file is empty."
        case .tooLarge(let bytes, let limit):
            "The file is \(Self.megabytes(bytes)), over the \(Self.megabytes(limit)) limit; split it or raise the size limit."
        case .binaryContent(let fileExtension):
            "The file is named .\(fileExtension) but holds binary data, not text; check that it is the file you meant."
        case .notValidUTF8:
            "The text is not valid UTF-8 (nor UTF-16 with a byte-order mark); save it as UTF-8 and try again."
        case .corruptPDF(let detail):
            "The PDF is damaged or not a PDF (\(detail)); re-export or repair it and try again."
        case .encryptedPDF:
            "The PDF is encrypted and needs a password; save a copy without a password and add that instead."
        case .corruptDOCX(let detail):
            "The DOCX file is damaged or not a Word document (\(detail)); re-save it from Word or LibreOffice."
        case .docxTooLarge(let detail):
            "The DOCX file expands too far to be read safely (\(detail)); it may be a zip bomb."
        case .unreadableImage(let detail):
            "The image could not be read (\(detail)); convert it to PNG or JPEG and try again."
        case .ocrUnavailable(let detail):
            "The file needs OCR, which is not available: \(detail)."
        case .unsupportedExtension(let fileExtension):
            fileExtension.isEmpty
                ? "The file has no extension; Sibyl reads .txt, .md, .html, .pdf, .docx, .png, .jpg and .tif files."
                : "Sibyl does not read .\(fileExtension) files; it reads .txt, .md, .html, .pdf, .docx, .png, .jpg and .tif files."
        case .unreadableFile(let detail):
            "The file could not be read: \(detail)."
        case .tooManyPages(let count, let limit):
            "The PDF has \(count) pages, over the \(limit)-page limit (docs.max_pdf_pages); split it or raise the limit."
        case .tookTooLong(let limit, let pagesRead, let pageCount):
            "Reading the file took longer than \(limit.components.seconds) s (docs.max_extraction_seconds), after \(pagesRead) of \(pageCount) pages; nothing of it was added. Split it or raise the limit."
        }
    }

    static func megabytes(_ bytes: Int64) -> String {
        bytes >= 1_000_000
            ? String(format: "%.1f MB", Double(bytes) / 1_000_000)
            : bytes >= 1000 ? String(format: "%.1f kB", Double(bytes) / 1000) : "\(bytes) bytes"
    }
}

extension ExtractionError: RemedyProviding {
    /// Missing OCR is installed.
    public var remedy: Remedy? {
        if case .ocrUnavailable = self { return .install(component: "ocr") }
        return nil
    }
}
