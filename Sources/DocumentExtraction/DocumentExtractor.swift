public import Foundation
public import SibylCore

/// Reads the text and structure of a document: plain text, Markdown, HTML, PDF, DOCX, or an image (OCR).
///
/// The format comes from the file's extension and is confirmed from its content, so a `.txt` that
/// holds binary data or a `.pdf` that is not a PDF is an error rather than garbage text.
public struct DocumentExtractor: Sendable {
    /// Limits and OCR settings.
    public struct Options: Sendable, Hashable {
        /// The largest file read, in bytes.
        public var maxFileSize: Int64
        /// Whether images and PDF pages without a text layer are OCR'd.
        public var ocr: Bool
        /// Tesseract language codes joined with `+`, such as `eng` or `eng+deu`.
        public var ocrLanguages: String
        /// The resolution PDF pages are rendered at for OCR.
        public var ocrResolution: Int
        /// The most one part of a DOCX file may expand to when inflated.
        public var maxDOCXPartSize: Int64
        /// The highest compression ratio accepted for a DOCX part over 1 MB.
        public var maxDOCXCompressionRatio: Double
        /// The most pages a PDF may have.
        public var maxPDFPages: Int
        /// How long reading one file may take (checked between PDF pages, where OCR makes it slow).
        public var timeLimit: Duration

        /// Options; the defaults suit documents a person would upload.
        public init(
            maxFileSize: Int64 = 100_000_000,
            ocr: Bool = true,
            ocrLanguages: String = "eng",
            ocrResolution: Int = 300,
            maxDOCXPartSize: Int64 = 200_000_000,
            maxDOCXCompressionRatio: Double = 200,
            maxPDFPages: Int = 5_000,
            timeLimit: Duration = .seconds(1_800)
        ) {
            self.maxFileSize = maxFileSize
            self.ocr = ocr
            self.ocrLanguages = ocrLanguages
            self.ocrResolution = ocrResolution
            self.maxDOCXPartSize = maxDOCXPartSize
            self.maxDOCXCompressionRatio = maxDOCXCompressionRatio
            self.maxPDFPages = maxPDFPages
            self.timeLimit = timeLimit
        }
    }

    /// Called after each page of a paginated document is read, with the pages done and the page count.
    public typealias PageProgress = @Sendable (_ pagesDone: Int, _ pageCount: Int) -> Void

    /// The limits and OCR settings in use.
    public var options: Options
    private let recognizer: (any TextRecognizer)?

    /// An extractor; images and scanned pages are read by `recognizer` (the application gives it
    /// the configured OCR engine); without one they cannot be read.
    public init(options: Options = Options(), recognizer: (any TextRecognizer)? = nil) {
        self.options = options
        self.recognizer = recognizer
    }

    /// The file extensions read, lower-case, without the dot.
    public static let supportedExtensions = ExtractedDocument.Format.readableExtensions

    /// The format a file extension stands for, or nil when it is not read.
    public static func format(forExtension fileExtension: String) -> ExtractedDocument.Format? {
        ExtractedDocument.Format(fileExtension: fileExtension)
    }

    /// Extracts one file's text; throws `ExtractionError` (or `CancellationError`) when it cannot.
    public func extract(_ file: URL) async throws -> ExtractedDocument {
        try await extract(file, progress: nil)
    }

    /// Extracts one file's text, reporting each page of a PDF as it is read.
    public func extract(_ file: URL, progress: PageProgress?) async throws -> ExtractedDocument {
        try Task.checkCancellation()
        let fileExtension = file.pathExtension.lowercased()
        guard let format = Self.format(forExtension: fileExtension) else {
            throw ExtractionError.unsupportedExtension(fileExtension)
        }
        let size = try Self.fileSize(of: file)
        guard size > 0 else { throw ExtractionError.emptyFile }
        guard size <= options.maxFileSize else { throw ExtractionError.tooLarge(bytes: size, limit: options.maxFileSize) }

        switch format {
        case .text, .markdown, .html:
            let decoded = try TextDecoding.decode(try Self.contents(of: file), fileExtension: fileExtension)
            guard !decoded.text.allSatisfy(\.isWhitespace) else { throw ExtractionError.emptyFile }
            var document: ExtractedDocument
            switch format {
            case .markdown:
                let (blocks, title) = try MarkdownReader.read(decoded.text)
                document = ExtractedDocument(format: .markdown, title: title, blocks: blocks)
            case .html:
                let (blocks, title) = try HTMLReader.read(decoded.text)
                document = ExtractedDocument(format: .html, title: title, blocks: blocks)
            default:
                document = ExtractedDocument(format: .text, blocks: try PlainTextReader.read(decoded.text))
            }
            if let note = decoded.note { document.warnings.append("The text is \(note).") }
            return document
        case .pdf:
            try Self.requirePDFHeader(file)
            return try await PDFReader(options: options, recognizer: options.ocr ? recognizer : nil).read(path: file.path, progress: progress)
        case .docx:
            let limits = DOCXPackage.Limits(maxPartSize: options.maxDOCXPartSize, maxCompressionRatio: options.maxDOCXCompressionRatio)
            return try DOCXReader(limits: limits).read(url: file)
        case .image:
            return try await ImageReader(options: options, recognizer: recognizer).read(try Self.contents(of: file))
        }
    }

    static func fileSize(of file: URL) throws -> Int64 {
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        } catch {
            throw ExtractionError.unreadableFile(FileManager.default.fileExists(atPath: file.path) ? "permission denied" : "no such file")
        }
        if attributes[.type] as? FileAttributeType == .typeDirectory { throw ExtractionError.unreadableFile("it is a directory") }
        return (attributes[.size] as? NSNumber)?.int64Value ?? 0
    }

    static func contents(of file: URL) throws -> Data {
        do {
            return try Data(contentsOf: file)
        } catch {
            throw ExtractionError.unreadableFile(error.localizedDescription)
        }
    }

    /// PDF readers accept junk before the header, within the first kilobyte.
    static func requirePDFHeader(_ file: URL) throws {
        guard let handle = try? FileHandle(forReadingFrom: file) else { throw ExtractionError.unreadableFile("permission denied") }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 1024)) ?? Data()
        guard head.range(of: Data("%PDF-".utf8)) != nil else {
            throw ExtractionError.corruptPDF("it has no PDF header")
        }
    }
}

extension DocumentExtractor: DocumentExtracting {}
