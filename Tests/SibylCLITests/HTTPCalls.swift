import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The HTTP calls CLI tests make to a running `sibyl serve`. Their timeouts are ceilings against
/// hangs: a loaded two-core CI machine has kept a plain request waiting for minutes.
enum HTTPCalls {
    /// A GET: the status and the JSON body, if it is JSON.
    static func get(_ url: String, timeout: TimeInterval = 600) async throws -> (status: Int, json: Any?) {
        let (data, response) = try await URLSession.shared.data(for: URLRequest(url: URL(string: url)!, timeoutInterval: timeout))
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, try? JSONSerialization.jsonObject(with: data))
    }

    /// A POST of a JSON object: the status and the JSON object answered (empty when it is not one).
    @discardableResult
    static func post(_ url: String, json: [String: Any], timeout: TimeInterval = 600) async throws -> (status: Int, object: [String: Any]) {
        var request = URLRequest(url: URL(string: url)!, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: json)
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:])
    }

    /// Uploads files (name and Markdown text) to `POST /documents` in one multipart request; the status.
    @discardableResult
    static func upload(base: String, files: [(name: String, text: String)], timeout: TimeInterval = 600) async throws -> Int {
        let boundary = "upload-\(UUID().uuidString)"
        var body = Data()
        for file in files {
            body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"files\"; filename=\"\(file.name)\"\r\nContent-Type: text/markdown\r\n\r\n".utf8))
            body.append(Data(file.text.utf8))
            body.append(Data("\r\n".utf8))
        }
        body.append(Data("--\(boundary)--\r\n".utf8))
        var request = URLRequest(url: URL(string: "\(base)/documents")!, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue("multipart/form-data; boundary=\(boundary)", forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }
}
