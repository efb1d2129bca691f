import CPoppler
import Foundation

/// A PDF opened with poppler-glib. Not thread-safe: one task uses it at a time.
final class PDFFile {
    private let document: OpaquePointer

    /// Opens a PDF; poppler's error becomes `encryptedPDF` or `corruptPDF`.
    init(path: String) throws {
        var error: UnsafeMutablePointer<GError>?
        let uri = URL(fileURLWithPath: path).absoluteString
        guard let document = poppler_document_new_from_file(uri, nil, &error) else {
            defer { if error != nil { g_error_free(error) } }
            guard let error else { throw ExtractionError.corruptPDF("poppler could not open it") }
            let message = error.pointee.message.map { String(cString: $0) } ?? "unknown error"
            if error.pointee.domain == poppler_error_quark(), error.pointee.code == Int32(POPPLER_ERROR_ENCRYPTED.rawValue) {
                throw ExtractionError.encryptedPDF
            }
            throw ExtractionError.corruptPDF(message)
        }
        self.document = document
    }

    deinit {
        g_object_unref(UnsafeMutableRawPointer(document))
    }

    var pageCount: Int { Int(poppler_document_get_n_pages(document)) }

    /// The title in the document's metadata, if it names one.
    var title: String? {
        guard let raw = poppler_document_get_title(document) else { return nil }
        defer { g_free(raw) }
        let title = String(cString: raw).trimmingWhitespace()
        return title.isEmpty ? nil : title
    }

    /// One page (0-based), released when the closure returns.
    func withPage<T>(_ index: Int, _ body: (PDFPage) throws -> T) throws -> T {
        guard let page = poppler_document_get_page(document, Int32(index)) else {
            throw ExtractionError.corruptPDF("page \(index + 1) cannot be read")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(page)) }
        return try body(PDFPage(page: page))
    }
}

/// A page borrowed from a `PDFFile`; valid only inside `withPage`.
struct PDFPage {
    fileprivate let page: OpaquePointer

    /// The page's text layer in reading order, lines separated by newlines.
    var text: String {
        guard let raw = poppler_page_get_text(page) else { return "" }
        defer { g_free(raw) }
        return String(cString: raw)
    }

    /// The page size in points.
    var size: (width: Double, height: Double) {
        var width = 0.0, height = 0.0
        poppler_page_get_size(page, &width, &height)
        return (width, height)
    }

    /// The share of the page (0–1) that its largest image covers.
    var largestImageCoverage: Double {
        let (width, height) = size
        guard width > 0, height > 0, let mapping = poppler_page_get_image_mapping(page) else { return 0 }
        defer { poppler_page_free_image_mapping(mapping) }
        var largest = 0.0
        var node: UnsafeMutablePointer<GList>? = mapping
        while let current = node {
            if let data = current.pointee.data {
                let area = data.assumingMemoryBound(to: PopplerImageMapping.self).pointee.area
                largest = max(largest, abs(area.x2 - area.x1) * abs(area.y2 - area.y1))
            }
            node = current.pointee.next
        }
        return min(1, largest / (width * height))
    }

    /// Renders the page on white at `dpi` (reduced for huge pages) and returns it as PNG bytes.
    func renderPNG(dpi: Int) throws -> Data {
        let (width, height) = size
        guard width > 0, height > 0, width.isFinite, height.isFinite else { throw ExtractionError.corruptPDF("a page has no size") }
        // Keep the bitmap under about 50 megapixels, whatever the page size, and each side within
        // cairo's 32,767 pixels: a damaged MediaBox can make a page 10¹⁹ points tall and 612 wide,
        // whose side at 50 megapixels would not even fit the Int32 cairo takes. The square roots
        // are taken apart so that the area of a huge page does not overflow to infinity.
        let maximumPixels = 50_000_000.0, maximumSide = 32_767.0
        let scale = min(Double(dpi) / 72, maximumPixels.squareRoot() / width.squareRoot() / height.squareRoot(), maximumSide / max(width, height))
        let pixelWidth = Int32(min(maximumSide, max(1, (width * scale).rounded(.up))))
        let pixelHeight = Int32(min(maximumSide, max(1, (height * scale).rounded(.up))))
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, pixelWidth, pixelHeight) else {
            throw ExtractionError.corruptPDF("a page could not be rendered")
        }
        defer { cairo_surface_destroy(surface) }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
            throw ExtractionError.corruptPDF("a page could not be rendered (out of memory?)")
        }
        let context = cairo_create(surface)
        cairo_set_source_rgb(context, 1, 1, 1)
        cairo_paint(context)
        cairo_scale(context, scale, scale)
        poppler_page_render(page, context)
        cairo_destroy(context)
        cairo_surface_flush(surface)

        let sink = PNGSink()
        let status = withExtendedLifetime(sink) {
            cairo_surface_write_to_png_stream(surface, { closure, bytes, length in
                guard let closure, let bytes else { return CAIRO_STATUS_WRITE_ERROR }
                Unmanaged<PNGSink>.fromOpaque(closure).takeUnretainedValue().data.append(bytes, count: Int(length))
                return CAIRO_STATUS_SUCCESS
            }, Unmanaged.passUnretained(sink).toOpaque())
        }
        guard status == CAIRO_STATUS_SUCCESS else { throw ExtractionError.corruptPDF("a rendered page could not be encoded") }
        return sink.data
    }
}

/// Collects the bytes cairo writes.
private final class PNGSink {
    var data = Data()
}
