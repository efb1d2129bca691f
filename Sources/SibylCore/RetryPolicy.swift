public import Foundation

/// When and how long a client waits before sending a failed request again. One rule for every
/// HTTP client Sibyl has (OpenAI, Pinecone); which failures are worth a retry is each client's
/// own (its error's `isRetryable`).
///
/// A failed request is tried again up to `maxRetries` times. A wait the server asks for
/// (`Retry-After`) is honoured when it is at most `maxHonouredRetryAfter`; otherwise the wait
/// doubles from `initialDelay` up to `maxDelay`, less up to 25 % jitter so that many clients
/// spread out.
public struct RetryPolicy: Sendable, Hashable {
    public var maxRetries: Int
    public var initialDelay: Duration
    public var maxDelay: Duration
    /// The longest server-requested wait that is honoured; longer ones fall back to backoff.
    public var maxHonouredRetryAfter: Duration

    /// The defaults mirror the official OpenAI SDKs: two retries, from 0.5 s up to 8 s, honouring
    /// a server's wait of up to a minute.
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

    /// The wait before retry number `attempt` (0-based): `requested` when it is between zero and
    /// `maxHonouredRetryAfter`; otherwise `initialDelay` doubled per attempt, capped at `maxDelay`,
    /// less up to 25 % (`jitter`, 0…1).
    public func delay(beforeRetry attempt: Int, requested: Duration?, jitter: Double = Double.random(in: 0...1)) -> Duration {
        if let requested, requested >= .zero, requested <= maxHonouredRetryAfter { return requested }
        let base = initialDelay * Double(1 << min(attempt, 30))
        return min(base, maxDelay) * (1 - 0.25 * jitter)
    }

    /// The wait before retry number `attempt` (0-based), given the failed answer's `Retry-After`.
    public func delay(beforeRetry attempt: Int, retryAfter: String?, now: Date = Date(), jitter: Double = Double.random(in: 0...1)) -> Duration {
        delay(beforeRetry: attempt, requested: retryAfter.flatMap { Self.retryAfter($0, now: now) }, jitter: jitter)
    }

    /// A `Retry-After` value: seconds, or an HTTP date (as a wait from `now`); nil when it is neither.
    public static func retryAfter(_ value: String, now: Date) -> Duration? {
        let value = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(value) { return .milliseconds(Int64(seconds * 1000)) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return .milliseconds(Int64(date.timeIntervalSince(now) * 1000))
    }
}
