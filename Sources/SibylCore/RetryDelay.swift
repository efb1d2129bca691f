public import Foundation

/// How long a client waits before sending a failed request again: what the server asked for in
/// `Retry-After` when that is reasonable, else a wait that doubles from try to try, with jitter
/// so that many clients spread out. One rule for every HTTP client Sibyl has (OpenAI, Pinecone).
public enum RetryDelay {
    /// The wait before retry number `attempt` (0-based): `requested` when it is between zero and
    /// `maxHonoured`; otherwise `initial` doubled per attempt, capped at `maximum`, less up to 25 %
    /// (`jitter`, 0…1).
    public static func delay(
        beforeRetry attempt: Int, requested: Duration?, initial: Duration, maximum: Duration, maxHonoured: Duration, jitter: Double
    ) -> Duration {
        if let requested, requested >= .zero, requested <= maxHonoured { return requested }
        let base = initial * Double(1 << min(attempt, 30))
        return min(base, maximum) * (1 - 0.25 * jitter)
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
