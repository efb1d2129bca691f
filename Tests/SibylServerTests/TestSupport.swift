import Foundation
import AsyncHTTPClient
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

let chatPath = "/v1/chat/completions"

/// One server-sent event: its name and its JSON payload.
struct SentEvent: Sendable {
    var name: String?
    var data: String

    var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any] }
}

/// Splits an event stream into events (comments skipped).
func events(in text: String) -> [SentEvent] {
    text.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "\n\n").compactMap { block in
        var name: String?
        var data: [String] = []
        for line in block.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("event:") { name = line.dropFirst(6).trimmingCharacters(in: .whitespaces) }
            if line.hasPrefix("data:") { data.append(line.dropFirst(5).trimmingCharacters(in: .whitespaces)) }
        }
        return data.isEmpty ? nil : SentEvent(name: name, data: data.joined(separator: "\n"))
    }
}

extension TestResponse {
    var text: String { String(buffer: body) }
    var json: Any? { try? JSONSerialization.jsonObject(with: Data(buffer: body)) }
    var object: [String: Any] { (json as? [String: Any]) ?? [:] }
    var array: [[String: Any]] { (json as? [[String: Any]]) ?? [] }
    /// The `error.code` of Sibyl's error body.
    var errorCode: String? { SibylServerTests.errorCode(in: text) }
}

/// The `error.code` of Sibyl's error body, given as text.
func errorCode(in text: String) -> String? {
    let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    return (object?["error"] as? [String: Any])?["code"] as? String
}

/// A JSON body for a request.
func jsonBody(_ object: Any) -> ByteBuffer {
    ByteBuffer(bytes: (try? JSONSerialization.data(withJSONObject: object)) ?? Data())
}

let jsonHeaders: HTTPFields = [.contentType: "application/json"]

/// A multipart/form-data body of files and fields.
struct MultipartBody {
    let boundary = "sibyl-test-\(UUID().uuidString)"
    private var data = Data()

    mutating func field(_ name: String, _ value: String) {
        data.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8))
    }

    mutating func file(_ name: String, filename: String, contentType: String, _ bytes: Data) {
        data.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"; filename=\"\(filename)\"\r\nContent-Type: \(contentType)\r\n\r\n".utf8))
        data.append(bytes)
        data.append(Data("\r\n".utf8))
    }

    var buffer: ByteBuffer {
        var whole = data
        whole.append(Data("--\(boundary)--\r\n".utf8))
        return ByteBuffer(bytes: whole)
    }

    var headers: HTTPFields { [.contentType: "multipart/form-data; boundary=\(boundary)"] }
}

/// A request on a connection of its own (the test framework's live client has one connection, so
/// its requests wait for each other); returns the status, the whole body and the headers (by
/// lower-case name).
///
/// Its ceiling is ten minutes, against hangs only: HummingbirdTesting's live client gives up after
/// 20 s without a byte, and a busy machine (a local engine loading beside the suite) has stalled
/// this process for longer than that.
func request(port: Int, _ method: String, _ path: String, json: Any? = nil) async throws -> (status: Int, text: String, headers: [String: String]) {
    var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
    request.method = .init(rawValue: method)
    if let json {
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json)))
    }
    let response = try await patientHTTP.execute(request, timeout: .seconds(600))
    let body = try await response.body.collect(upTo: 16 << 20)
    let headers = Dictionary(response.headers.map { ($0.name.lowercased(), $0.value) }) { first, _ in first }
    return (Int(response.status.code), String(buffer: body), headers)
}
