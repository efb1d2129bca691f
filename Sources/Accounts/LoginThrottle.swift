import Foundation
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
        perAccount: Rule = Rule(burst: 5, refillSeconds: 60), perAddress: Rule = Rule(burst: 20, refillSeconds: 3),
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
        let gained = max(0, date.timeIntervalSince(bucket.at)) / rule.refillSeconds
        return Bucket(tokens: min(Double(rule.burst), bucket.tokens + gained), at: date)
    }

    /// Seconds until the bucket has a token again (0 when it has one).
    private static func wait(_ buckets: inout [String: Bucket], key: String, rule: Rule, at date: Date) -> Double {
        guard buckets[key] != nil else { return 0 }
        let bucket = refilled(buckets[key], rule: rule, at: date)
        buckets[key] = bucket
        return bucket.tokens >= 1 ? 0 : (1 - bucket.tokens) * rule.refillSeconds
    }

    private static func take(_ buckets: inout [String: Bucket], key: String, rule: Rule, at date: Date) {
        var bucket = refilled(buckets[key], rule: rule, at: date)
        bucket.tokens = max(0, bucket.tokens - 1)
        buckets[key] = bucket
    }

    /// Forgets buckets that have refilled, so that a flood of names cannot grow memory for ever.
    private static func dropFull(_ buckets: inout [String: Bucket], at date: Date, rules: [Rule]) {
        let slowest = rules.map { Double($0.burst) * $0.refillSeconds }.max() ?? 0
        buckets = buckets.filter { date.timeIntervalSince($0.value.at) < slowest }
    }
}
