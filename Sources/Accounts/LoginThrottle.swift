public import Foundation
import Synchronization

/// Counts failed sign-ins and refuses more once there have been too many: `LoginThrottle` in this
/// process's memory, or a table every instance on a shared database reads (PostgresStorage).
public protocol LoginThrottling: Sendable {
    /// Throws `AccountError.throttled` while the name or the address has no tries left.
    func check(name: String, address: String) async throws
    /// Counts a failed sign-in against the name and the address.
    func recordFailure(name: String, address: String) async throws
    /// A successful sign-in forgives the name's failures (not the address's).
    func recordSuccess(name: String) async throws
}

/// Limits failed sign-ins, per account name and per client address, with token buckets: each
/// failure takes a token, tokens come back at a steady rate, and an empty bucket refuses sign-ins
/// (checked before the password is, so a throttled guess learns nothing). Names that have no
/// account are counted the same way, so throttling does not reveal which names exist.
public final class LoginThrottle: LoginThrottling {
    /// How many failures a bucket holds, and how fast they are forgiven.
    public struct Rule: Sendable, Hashable {
        public var burst: Int
        public var refillSeconds: Double

        public init(burst: Int, refillSeconds: Double) {
            self.burst = burst
            self.refillSeconds = refillSeconds
        }

        /// 5 failures per account name, then one try a minute.
        public static let perAccount = Rule(burst: 5, refillSeconds: 60)
        /// 20 failures per client address, then one try every 3 s.
        public static let perAddress = Rule(burst: 20, refillSeconds: 3)

        /// The tokens a bucket that held `tokens` holds `seconds` later.
        public func tokens(_ tokens: Double, after seconds: Double) -> Double {
            min(Double(burst), tokens + max(0, seconds) / refillSeconds)
        }

        /// Seconds until a bucket holding `tokens` has a whole one (0 when it has).
        public func wait(holding tokens: Double) -> Double {
            tokens >= 1 ? 0 : (1 - tokens) * refillSeconds
        }

        /// How long an empty bucket takes to fill: a bucket untouched that long is as good as new.
        public var fillSeconds: Double { Double(burst) * refillSeconds }
    }

    public let perAccount: Rule
    public let perAddress: Rule
    private let buckets = Mutex<[String: Bucket]>([:])
    private let now: @Sendable () -> Date

    private struct Bucket {
        var tokens: Double
        var at: Date
    }

    /// 5 failures per account, then one try a minute; 20 per address, then one every 3 s.
    public init(
        perAccount: Rule = .perAccount, perAddress: Rule = .perAddress,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.perAccount = perAccount
        self.perAddress = perAddress
        self.now = now
    }

    /// Throws `throttled` when either bucket is empty.
    public func check(name: String, address: String) throws {
        let date = now()
        let wait = buckets.withLock { buckets in
            max(Self.wait(&buckets, key: Self.key(name: name), rule: perAccount, at: date),
                Self.wait(&buckets, key: Self.key(address: address), rule: perAddress, at: date))
        }
        if wait > 0 { throw AccountError.throttled(retryAfter: Int(wait.rounded(.up))) }
    }

    /// Counts a failed sign-in against both buckets.
    public func recordFailure(name: String, address: String) {
        let date = now()
        buckets.withLock { buckets in
            Self.take(&buckets, key: Self.key(name: name), rule: perAccount, at: date)
            Self.take(&buckets, key: Self.key(address: address), rule: perAddress, at: date)
            if buckets.count > 50_000 { Self.dropFull(&buckets, at: date, rules: [perAccount, perAddress]) }
        }
    }

    /// A successful sign-in forgives the account's failures (not the address's).
    public func recordSuccess(name: String) {
        _ = buckets.withLock { $0.removeValue(forKey: Self.key(name: name)) }
    }

    /// The bucket of an account name (any case) and of a client address.
    public static func key(name: String) -> String { "name:" + name.lowercased() }
    public static func key(address: String) -> String { "address:" + address }

    private static func refilled(_ bucket: Bucket?, rule: Rule, at date: Date) -> Bucket {
        guard let bucket else { return Bucket(tokens: Double(rule.burst), at: date) }
        return Bucket(tokens: rule.tokens(bucket.tokens, after: date.timeIntervalSince(bucket.at)), at: date)
    }

    /// Seconds until the bucket has a token again (0 when it has one).
    private static func wait(_ buckets: inout [String: Bucket], key: String, rule: Rule, at date: Date) -> Double {
        guard buckets[key] != nil else { return 0 }
        let bucket = refilled(buckets[key], rule: rule, at: date)
        buckets[key] = bucket
        return rule.wait(holding: bucket.tokens)
    }

    private static func take(_ buckets: inout [String: Bucket], key: String, rule: Rule, at date: Date) {
        var bucket = refilled(buckets[key], rule: rule, at: date)
        bucket.tokens = max(0, bucket.tokens - 1)
        buckets[key] = bucket
    }

    /// Forgets buckets that have refilled, so that a flood of names cannot grow memory for ever.
    private static func dropFull(_ buckets: inout [String: Bucket], at date: Date, rules: [Rule]) {
        let slowest = rules.map(\.fillSeconds).max() ?? 0
        buckets = buckets.filter { date.timeIntervalSince($0.value.at) < slowest }
    }
}
