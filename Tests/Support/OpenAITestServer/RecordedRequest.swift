import Foundation

/// A request the test server received.
public struct RecordedRequest: Sendable {
    public var method: String
    /// The path without the query, e.g. `/v1/chat/completions`.
    public var path: String
    public var headers: [(String, String)]
    public var body: Data
    public var receivedAt: ContinuousClock.Instant

    /// The first value of a header, case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    /// The body parsed as a JSON object.
    public var json: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
    }
}
