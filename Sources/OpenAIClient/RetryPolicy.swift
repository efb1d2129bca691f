import Foundation
import SibylCore

/// When and how long to wait before trying a request again.
///
/// Mirrors the official OpenAI SDKs: retry 408, 409, 429, 5xx and connection failures up to
/// `maxRetries` times; honour `retry-after-ms` / `retry-after` when the server asks for at most a
/// minute; otherwise back off exponentially from 0.5 s, capped at 8 s, with up to 25 % jitter.
public struct RetryPolicy: Sendable, Hashable {
    public var maxRetries: Int
    public var initialDelay: Duration
    public var maxDelay: Duration
    /// The longest server-requested wait that is honoured; longer ones fall back to backoff.
    public var maxHonouredRetryAfter: Duration

    public init(
        maxRetries: Int = 2,
        initialDelay: Duration = .milliseconds(500),
        maxDelay: Duration = .seconds(8),
        maxHonouredRetryAfter: Duration = .seconds(60)
    ) {
        self.maxRetries = maxRetries
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
        self.maxHonouredRetryAfter = maxHonouredRetryAfter
    }

    /// No retries at all.
    public static let none = RetryPolicy(maxRetries: 0)

    /// The wait before retry number `attempt` (0-based), given the failed response's headers.
    func delay(beforeRetry attempt: Int, headers: [(String, String)], now: Date = Date(), jitter: Double = Double.random(in: 0...1)) -> Duration {
        RetryDelay.delay(
            beforeRetry: attempt, requested: Self.requestedDelay(headers: headers, now: now),
            initial: initialDelay, maximum: maxDelay, maxHonoured: maxHonouredRetryAfter, jitter: jitter
        )
    }

    /// The wait the server asked for, from `retry-after-ms` (milliseconds) or `retry-after` (seconds or an HTTP date).
    static func requestedDelay(headers: [(String, String)], now: Date) -> Duration? {
        func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name }?.1.trimmingCharacters(in: .whitespaces)
        }
        if let value = header("retry-after-ms"), let ms = Double(value) {
            return .milliseconds(Int64(ms))
        }
        return header("retry-after").flatMap { RetryDelay.retryAfter($0, now: now) }
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
