import Foundation

/// Builds `multipart/form-data` bodies the way a well-behaved client does, for tests.
struct MultipartTestForm {
    /// The boundary; fixed so failures print the same body every run.
    let boundary = "sibyl-test-boundary-7MA4YWxkTrZu0gW"
    /// The body built so far, without the closing delimiter.
    private var parts = Data()

    /// The `Content-Type` header value to send with `body`.
    var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// The finished body, closing delimiter included.
    var body: Data { parts + Data("--\(boundary)--\r\n".utf8) }

    /// Appends a text field.
    mutating func text(_ name: String, _ value: String) {
        parts += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
    }

    /// Appends a file part, which carries a filename and its own content type.
    mutating func file(_ name: String, filename: String, contentType: String, bytes: Data) {
        parts += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"; filename=\"\(filename)\"\r\nContent-Type: \(contentType)\r\n\r\n".utf8)
        parts += bytes + Data("\r\n".utf8)
    }
}
