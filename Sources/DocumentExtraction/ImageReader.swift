import Foundation
import SibylCore

/// Images: the text tesseract reads in them, with its confidence.
struct ImageReader {
    var options: DocumentExtractor.Options
    var recognizer: (any TextRecognizer)?

    func read(_ data: Data) async throws -> ExtractedDocument {
        guard Self.isImage(data) else {
            throw ExtractionError.unreadableImage("it is not a PNG, JPEG, TIFF, GIF or WebP image")
        }
        guard options.ocr else { throw ExtractionError.ocrUnavailable("OCR is turned off") }
        guard let recognizer else {
            throw ExtractionError.ocrUnavailable("tesseract is not installed (the ocr component)")
        }
        let recognized: RecognizedText
        do {
            recognized = try await recognizer.recognize(data, options: RecognitionOptions(languages: options.ocrLanguages))
        } catch let error as RecognitionError {
            switch error {
            case .notAnImage: throw ExtractionError.unreadableImage("tesseract does not recognise the format")
            case .engineFailed(let detail): throw ExtractionError.unreadableImage(detail.trimmingWhitespace())
            }
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            // The engine could not run (not installed, or it failed to start).
            throw ExtractionError.ocrUnavailable(error.localizedDescription)
        }
        var collector = BlockCollector()
        OCRBlocks.add(recognized, page: nil, to: &collector)
        let warnings = collector.blocks.isEmpty ? ["OCR found no text in the image."] : []
        return ExtractedDocument(format: .image, blocks: collector.blocks, warnings: warnings)
    }

    static func isImage(_ data: Data) -> Bool {
        ImageSniffer.mimeType(of: data) != nil
            || data.starts(with: [0x49, 0x49, 0x2A, 0x00]) || data.starts(with: [0x4D, 0x4D, 0x00, 0x2A])
    }
}
