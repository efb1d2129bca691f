import Foundation
import SibylCore

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
        RetryDelay.delay(
            beforeRetry: attempt, requested: retryAfter.flatMap { RetryDelay.retryAfter($0, now: now) },
            initial: initialDelay, maximum: maxDelay, maxHonoured: maxHonouredRetryAfter, jitter: jitter
        )
    }
}
