import Foundation
import SibylCore

/// The retry headers OpenAI-compatible servers send. Like the official OpenAI SDKs, the client
/// retries 408, 409, 429, 5xx and connection failures; a server may ask for a wait in
/// `retry-after-ms` or `retry-after`, or say outright whether to retry (`x-should-retry`).
extension RetryPolicy {
    /// The wait before retry number `attempt` (0-based), given the failed response's headers.
    func delay(beforeRetry attempt: Int, headers: [(String, String)], now: Date = Date(), jitter: Double = Double.random(in: 0...1)) -> Duration {
        delay(beforeRetry: attempt, requested: Self.requestedDelay(headers: headers, now: now), jitter: jitter)
    }

    /// The wait the server asked for, from `retry-after-ms` (milliseconds) or `retry-after` (seconds or an HTTP date).
    static func requestedDelay(headers: [(String, String)], now: Date) -> Duration? {
        func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name }?.1.trimmingCharacters(in: .whitespaces)
        }
        if let value = header("retry-after-ms"), let ms = Double(value) {
            return .milliseconds(Int64(ms))
        }
        return header("retry-after").flatMap { retryAfter($0, now: now) }
    }

    /// Whether the server told us outright to retry or not (`x-should-retry`).
    static func serverDecision(headers: [(String, String)]) -> Bool? {
        switch headers.first(where: { $0.0.lowercased() == "x-should-retry" })?.1 {
        case "true": true
        case "false": false
        default: nil
        }
    }
}
