import Foundation

/// When and how long to wait before sending a failed Pinecone request again.
///
/// Rate limits (429), server errors (5xx) and failed connections are retried up to `maxRetries`
/// times; other 4xx never are, because the same request would fail the same way. A `Retry-After`
/// of at most `maxHonouredRetryAfter` is honoured; otherwise the wait doubles from
/// `initialDelay` up to `maxDelay`, less up to 25 % jitter so that many clients spread out.
public struct PineconeRetryPolicy: Sendable, Hashable {
    public var maxRetries: Int
    public var initialDelay: Duration
    public var maxDelay: Duration
    /// The longest server-requested wait that is honoured; longer ones fall back to backoff.
    public var maxHonouredRetryAfter: Duration

    public init(
        maxRetries: Int = 3,
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
    public static let none = PineconeRetryPolicy(maxRetries: 0)

    /// The wait before retry number `attempt` (0-based), given the failed answer's `Retry-After`.
    public func delay(beforeRetry attempt: Int, retryAfter: String?, now: Date = Date(), jitter: Double = Double.random(in: 0...1)) -> Duration {
        if let requested = retryAfter.flatMap({ Self.requestedDelay($0, now: now) }), requested >= .zero, requested <= maxHonouredRetryAfter {
            return requested
        }
        let base = initialDelay * Double(1 << min(attempt, 30))
        return min(base, maxDelay) * (1 - 0.25 * jitter)
    }

    /// A `Retry-After` value: seconds, or an HTTP date.
    static func requestedDelay(_ value: String, now: Date) -> Duration? {
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
