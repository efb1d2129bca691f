import Foundation

/// A `multipart/form-data` body (RFC 7578) split into its parts.
///
/// Strict where clients commonly go wrong (CRLF line ends, the closing delimiter, a `name` on
/// every part), because finding those mistakes is what contract tests are for.
struct MultipartFormBody: Sendable {
    /// One form field: a text value, or a file when the part carries a `filename`.
    struct Part: Sendable {
        /// The field name from `Content-Disposition`.
        var name: String
        /// The file name, present exactly for file uploads.
        var filename: String?
        /// The part's own `Content-Type`, if it sent one.
        var contentType: String?
        /// The raw content.
        var content: Data

        /// True when the part is a file upload rather than a text field.
        var isFile: Bool { filename != nil }
    }

    /// The parts, in body order.
    var parts: [Part]

    /// Splits `body` on the boundary taken from a whole `Content-Type` header value such as
    /// `multipart/form-data; boundary=XYZ`.
    init(_ body: Data, contentType: String) throws(MultipartFormError) {
        guard let boundary = ParameterizedHeaderValue(contentType).parameters["boundary"], !boundary.isEmpty else {
            throw MultipartFormError("the content type has no boundary parameter: \(contentType)")
        }
        try self.init(body, boundary: boundary)
    }

    /// Splits `body` on `boundary`.
    init(_ body: Data, boundary: String) throws(MultipartFormError) {
        let crlf = Data("\r\n".utf8)
        let delimiter = Data("--\(boundary)".utf8)
        // Every delimiter after the first is preceded by CRLF, which belongs to the delimiter
        // and not to the previous part's content.
        let innerDelimiter = crlf + delimiter

        guard var cursor = body.range(of: delimiter)?.upperBound else {
            throw MultipartFormError("the body never contains the boundary --\(boundary)")
        }
        var parts: [Part] = []
        while true {
            let rest = body[cursor...]
            if rest.starts(with: Data("--".utf8)) {
                break  // The closing delimiter; an epilogue after it is allowed and ignored.
            }
            guard rest.starts(with: crlf) else {
                throw MultipartFormError("part \(parts.count + 1): the boundary line must end with CRLF")
            }
            let headerStart = cursor + crlf.count
            guard let headerEnd = body.range(of: crlf + crlf, in: headerStart..<body.endIndex) else {
                throw MultipartFormError("part \(parts.count + 1): headers are not ended by an empty CRLF line")
            }
            guard let next = body.range(of: innerDelimiter, in: headerEnd.upperBound..<body.endIndex) else {
                throw MultipartFormError("part \(parts.count + 1) is not followed by a boundary; the closing --\(boundary)-- is missing")
            }
            let headers = String(decoding: body[headerStart..<headerEnd.lowerBound], as: UTF8.self)
            parts.append(try Self.part(headers: headers, content: body[headerEnd.upperBound..<next.lowerBound], index: parts.count + 1))
            cursor = next.upperBound
        }
        self.parts = parts
    }

    private static func part(headers: String, content: Data, index: Int) throws(MultipartFormError) -> Part {
        var disposition: ParameterizedHeaderValue?
        var contentType: String?
        for line in headers.components(separatedBy: "\r\n") where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else {
                throw MultipartFormError("part \(index): malformed header line \(line)")
            }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            switch name {
            case "content-disposition": disposition = ParameterizedHeaderValue(value)
            case "content-type": contentType = value
            default: break
            }
        }
        guard let disposition, disposition.essence == "form-data" else {
            throw MultipartFormError("part \(index): missing Content-Disposition: form-data")
        }
        guard let name = disposition.parameters["name"] else {
            throw MultipartFormError("part \(index): Content-Disposition has no name")
        }
        return Part(name: name, filename: disposition.parameters["filename"], contentType: contentType, content: Data(content))
    }
}

/// Why a multipart body could not be split into parts.
struct MultipartFormError: Error, Sendable, CustomStringConvertible {
    /// What is malformed.
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
