import Foundation
import HTTPTypes
import Hummingbird
import MultipartKit
import NIOCore

/// A `multipart/form-data` body, read as it arrives with MultipartKit's parser and held to the
/// upload limits: the total size and the number of files.
struct MultipartForm: Sendable {
    /// One field or file.
    struct Part: Sendable {
        var name: String
        var filename: String?
        var contentType: String?
        var data: Data

        var text: String { String(decoding: data, as: UTF8.self) }
    }

    var parts: [Part]

    /// The files, in order.
    var files: [Part] { parts.filter { $0.filename != nil } }

    /// The first file named `name`.
    func file(_ name: String) -> Part? { parts.first { $0.name == name && $0.filename != nil } ?? parts.first { $0.name == name } }

    /// A text field's value, nil when absent or empty.
    func field(_ name: String) -> String? {
        guard let part = parts.first(where: { $0.name == name && $0.filename == nil }) else { return nil }
        let text = part.text.trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }

    /// Reads a request's multipart body.
    static func read(_ request: Request, limit: Int, maxFiles: Int) async throws -> MultipartForm {
        guard let contentType = request.headers[.contentType], contentType.lowercased().hasPrefix("multipart/form-data"),
              let boundary = Self.boundary(in: contentType) else {
            throw APIError(.unsupportedMediaType, code: "unsupported_media_type", "Send the files as multipart/form-data (with a boundary).")
        }
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit { throw APIError.tooLarge(limit: limit) }
        let collector = Collector(boundary: boundary)
        var received = 0
        for try await buffer in request.body {
            received += buffer.readableBytes
            guard received <= limit else { throw APIError.tooLarge(limit: limit) }
            try collector.feed(buffer)
            guard collector.fileCount <= maxFiles else {
                throw APIError(.contentTooLarge, code: "too_many_files", "At most \(maxFiles) files can be uploaded at once.")
            }
        }
        guard !collector.hasPendingPart, !collector.parts.isEmpty else {
            throw APIError.badRequest("The multipart body ended before its closing boundary.", code: "invalid_multipart")
        }
        return MultipartForm(parts: collector.parts)
    }

    static func boundary(in contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0].lowercased() == "boundary" {
                let value = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                return value.isEmpty ? nil : value
            }
        }
        return nil
    }

    /// Gathers the parser's callbacks into parts (one request, one task: no sharing).
    private final class Collector {
        private let parser: MultipartParser
        private var headerNames: HeaderNameGuard
        private(set) var parts: [Part] = []
        private var headers: [(String, String)] = []
        private var body = Data()
        private(set) var fileCount = 0

        init(boundary: String) {
            parser = MultipartParser(boundary: boundary)
            headerNames = HeaderNameGuard(boundary: boundary)
            parser.onHeader = { [unowned self] name, value in headers.append((name.lowercased(), value)) }
            parser.onBody = { [unowned self] buffer in body.append(contentsOf: buffer.readableBytesView) }
            parser.onPartComplete = { [unowned self] in complete() }
        }

        func feed(_ buffer: ByteBuffer) throws {
            guard headerNames.allASCII(buffer) else {
                throw APIError.badRequest("The multipart body is malformed: a part's header name is not ASCII.", code: "invalid_multipart")
            }
            do {
                try parser.execute(buffer)
            } catch {
                throw APIError.badRequest("The multipart body is malformed.", code: "invalid_multipart")
            }
        }

        private func complete() {
            let disposition = headers.first { $0.0 == "content-disposition" }?.1 ?? ""
            let name = Self.parameter("name", in: disposition) ?? ""
            let filename = Self.parameter("filename", in: disposition)
            if filename != nil { fileCount += 1 }
            parts.append(Part(name: name, filename: filename, contentType: headers.first { $0.0 == "content-type" }?.1, data: body))
            headers = []
            body = Data()
        }

        /// Whether a part began and did not end: the body was cut short.
        var hasPendingPart: Bool { !headers.isEmpty || !body.isEmpty }

        /// A `name="value"` parameter of a header value.
        static func parameter(_ key: String, in header: String) -> String? {
            for piece in header.split(separator: ";").dropFirst() {
                let pair = piece.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard pair.count == 2, pair[0].lowercased() == key else { continue }
                var value = pair[1]
                if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
                return value.replacingOccurrences(of: "\\\"", with: "\"")
            }
            return nil
        }
    }

    /// Finds a byte over 0x7F in a part's header name before MultipartKit's parser does: its
    /// parser (4.7) looks such a byte up in a 128-entry table and traps, which would take the whole
    /// server down on one request.
    ///
    /// It follows the stream as the parser does, but errs towards looking: header lines start
    /// after every `--boundary` CRLF, even one the parser would take for body bytes, and after every
    /// CRLF that ends a header line; a name runs to its colon. Header names are ASCII tokens
    /// (RFC 7578), so nothing a real client sends is refused; UTF-8 filenames are in values.
    struct HeaderNameGuard {
        private enum State {
            /// In a body, a preamble or an epilogue.
            case outside
            case name(length: Int)
            case value
            /// A header line's CR, which the parser wants followed by LF.
            case afterCR
        }

        private var state = State.outside
        /// The delimiter line, and its Knuth–Morris–Pratt failure table: boundaries such as
        /// `----WebKitFormBoundary…` overlap themselves, which a naive restart would miss.
        private let delimiter: [UInt8]
        private let fallback: [Int]
        private var matched = 0

        init(boundary: String) {
            delimiter = Array("--\(boundary)\r\n".utf8)
            var fallback = [0]
            var length = 0
            for byte in delimiter.dropFirst() {
                while length > 0, byte != delimiter[length] { length = fallback[length - 1] }
                if byte == delimiter[length] { length += 1 }
                fallback.append(length)
            }
            self.fallback = fallback
        }

        /// Whether every header name byte in `buffer` (continuing the stream so far) is ASCII.
        mutating func allASCII(_ buffer: ByteBuffer) -> Bool {
            for byte in buffer.readableBytesView {
                switch state {
                case .outside:
                    break
                case .name(let length):
                    if byte >= 0x80 { return false }
                    // A CR ends the headers when it starts the line; anywhere else in a name the parser refuses it.
                    state = byte == UInt8(ascii: ":") ? .value : byte == UInt8(ascii: "\r") ? (length == 0 ? .outside : .afterCR) : .name(length: length + 1)
                case .value:
                    if byte == UInt8(ascii: "\r") { state = .afterCR }
                case .afterCR:
                    state = byte == UInt8(ascii: "\n") ? .name(length: 0) : .outside
                }
                while matched > 0, byte != delimiter[matched] { matched = fallback[matched - 1] }
                if byte == delimiter[matched] { matched += 1 }
                if matched == delimiter.count {
                    state = .name(length: 0)
                    matched = fallback[matched - 1]
                }
            }
            return true
        }
    }
}
