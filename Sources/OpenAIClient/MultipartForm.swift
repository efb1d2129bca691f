import Foundation

/// A `multipart/form-data` body, as the audio endpoints take it.
struct MultipartForm: Sendable {
    let boundary: String
    private(set) var body = Data()

    init(boundary: String = "sibyl-\(UUID().uuidString)") {
        self.boundary = boundary
    }

    var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    mutating func addField(_ name: String, _ value: String) {
        body.append("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(Self.escape(name))\"\r\n\r\n")
        body.append(value)
        body.append("\r\n")
    }

    mutating func addFile(_ name: String, filename: String, mimeType: String, data: Data) {
        body.append("--\(boundary)\r\n")
        body.append("Content-Disposition: form-data; name=\"\(Self.escape(name))\"; filename=\"\(Self.escape(filename))\"\r\n")
        body.append("Content-Type: \(mimeType)\r\n\r\n")
        body.append(data)
        body.append("\r\n")
    }

    /// The finished body, with the closing boundary.
    func finished() -> Data {
        var result = body
        result.append("--\(boundary)--\r\n")
        return result
    }

    /// Quotes and line breaks cannot appear inside a quoted header parameter.
    private static func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\"", with: "%22")
            .replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }
}

extension Data {
    fileprivate mutating func append(_ text: String) {
        append(contentsOf: Array(text.utf8))
    }
}
