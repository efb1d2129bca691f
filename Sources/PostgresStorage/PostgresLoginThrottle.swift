public import Accounts
import Foundation
import PostgresNIO

extension PostgresDatabase {
    /// Failed sign-ins, counted for every instance: a token bucket per account name and per client
    /// address, as `LoginThrottle` keeps them in memory, with the database's clock.
    static let loginThrottleSchema = Migration(version: 6, name: "sign-in throttling", statements: [
        """
        CREATE TABLE ac_login_bucket (
            key text PRIMARY KEY,
            tokens double precision NOT NULL,
            at timestamptz NOT NULL
        )
        """,
        "CREATE INDEX ac_login_bucket_at ON ac_login_bucket (at)",
    ])
}

/// Sign-in throttling shared by every `sibyl serve` on the database, so that a guesser spreading
/// tries over the instances behind a load balancer gets no more of them than against one. The
/// rules and their meaning are `LoginThrottle`'s; times come from the database's clock, so the
/// instances' clocks need not agree.
public final class PostgresLoginThrottle: LoginThrottling, SharedTables {
    public let database: PostgresDatabase
    let ready: @Sendable () async throws -> Void
    public let perAccount: LoginThrottle.Rule
    public let perAddress: LoginThrottle.Rule

    public init(
        database: PostgresDatabase,
        perAccount: LoginThrottle.Rule = .perAccount, perAddress: LoginThrottle.Rule = .perAddress,
        ready: @escaping @Sendable () async throws -> Void = {}
    ) {
        self.database = database
        self.perAccount = perAccount
        self.perAddress = perAddress
        self.ready = ready
    }

    public func check(name: String, address: String) async throws {
        let rules = [LoginThrottle.key(name: name): perAccount, LoginThrottle.key(address: address): perAddress]
        let wait = try await calling {
            // Both buckets in one query; a bucket that is not there is full.
            let rows = try await database.client.query(
                "SELECT key, tokens, extract(epoch FROM clock_timestamp() - at)::float8 FROM ac_login_bucket WHERE key = ANY(\(Array(rules.keys)))",
                logger: logger
            )
            var longest = 0.0
            for try await (key, tokens, elapsed) in rows.decode((String, Double, Double).self) {
                guard let rule = rules[key] else { continue }
                longest = max(longest, rule.wait(holding: rule.tokens(tokens, after: elapsed)))
            }
            return longest
        }
        if wait > 0 { throw AccountError.throttled(retryAfter: Int(wait.rounded(.up))) }
    }

    public func recordFailure(name: String, address: String) async throws {
        let buckets = [(LoginThrottle.key(name: name), perAccount), (LoginThrottle.key(address: address), perAddress)]
        try await writing { connection in
            for (key, rule) in buckets {
                // Refilled for the time since the last failure, then one token taken, in one
                // statement: two instances counting at once both count.
                let burst = Double(rule.burst), refill = rule.refillSeconds
                try await connection.query("""
                    INSERT INTO ac_login_bucket AS b (key, tokens, at) VALUES (\(key), \(burst - 1), clock_timestamp())
                    ON CONFLICT (key) DO UPDATE SET
                        tokens = greatest(0, least(\(burst), b.tokens + greatest(0, extract(epoch FROM clock_timestamp() - b.at)::float8) / \(refill)) - 1),
                        at = clock_timestamp()
                    """, logger: logger)
            }
            // Buckets that have refilled are forgotten, so that a flood of names cannot grow the
            // table for ever (now and then: it is a scan of the table's oldest rows).
            if Int.random(in: 0..<50) == 0 {
                let full = max(perAccount.fillSeconds, perAddress.fillSeconds)
                try await connection.query(
                    "DELETE FROM ac_login_bucket WHERE at < clock_timestamp() - make_interval(secs => \(full))", logger: logger
                )
            }
        }
    }

    public func recordSuccess(name: String) async throws {
        try await calling {
            try await database.client.query("DELETE FROM ac_login_bucket WHERE key = \(LoginThrottle.key(name: name))", logger: logger)
        }
    }
}
