import Foundation
import SibylCore
import Testing
@testable import OpenAIClient

@Suite("Retry policy", .timeLimit(.minutes(10)))
struct RetryPolicyTests {
    let policy = RetryPolicy()

    @Test func retryAfterMillisecondsWins() {
        let delay = policy.delay(beforeRetry: 0, headers: [("retry-after-ms", "1500"), ("retry-after", "9")])
        #expect(delay == .milliseconds(1500))
    }

    @Test func retryAfterSeconds() {
        #expect(policy.delay(beforeRetry: 0, headers: [("Retry-After", "2")]) == .seconds(2))
    }

    @Test func retryAfterHTTPDate() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        let header = formatter.string(from: now.addingTimeInterval(5))
        let delay = policy.delay(beforeRetry: 0, headers: [("retry-after", header)], now: now)
        #expect(delay == .seconds(5))
    }

    @Test func overlongRetryAfterFallsBackToBackoff() {
        let delay = policy.delay(beforeRetry: 0, headers: [("retry-after", "3600")], jitter: 0)
        #expect(delay == .milliseconds(500))
    }

    @Test func backoffDoublesAndIsCapped() {
        #expect(policy.delay(beforeRetry: 0, headers: [], jitter: 0) == .milliseconds(500))
        #expect(policy.delay(beforeRetry: 1, headers: [], jitter: 0) == .seconds(1))
        #expect(policy.delay(beforeRetry: 3, headers: [], jitter: 0) == .seconds(4))
        #expect(policy.delay(beforeRetry: 10, headers: [], jitter: 0) == .seconds(8))
    }

    @Test func jitterTakesOffAtMostAQuarter() {
        #expect(policy.delay(beforeRetry: 2, headers: [], jitter: 1) == .milliseconds(1500))
    }

    @Test func serverCanSayYesOrNo() {
        #expect(RetryPolicy.serverDecision(headers: [("x-should-retry", "true")]) == true)
        #expect(RetryPolicy.serverDecision(headers: [("X-Should-Retry", "false")]) == false)
        #expect(RetryPolicy.serverDecision(headers: []) == nil)
    }

    @Test func retryableErrors() {
        func api(_ status: Int, code: String? = nil) -> OpenAIError {
            .api(status: status, detail: APIErrorDetail(message: "x", code: code), requestID: nil)
        }
        #expect(api(408).isRetryable && api(409).isRetryable && api(429).isRetryable && api(500).isRetryable && api(503).isRetryable)
        #expect(!api(400).isRetryable && !api(401).isRetryable && !api(404).isRetryable)
        #expect(!api(429, code: "insufficient_quota").isRetryable)
        #expect(OpenAIError.connection("refused").isRetryable)
        #expect(OpenAIError.timeout("read").isRetryable)
        #expect(!OpenAIError.streamInterrupted(partial: "", reason: "x").isRetryable)
    }
}
