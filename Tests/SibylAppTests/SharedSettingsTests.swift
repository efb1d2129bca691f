import Assistant
import Foundation
import Logging
import PostgresStorage
import SibylTestSupport
import SibylApp
import SibylConfig
import TestDatabase
import Testing

/// Settings and API keys shared by the instances on one PostgreSQL: each test runs two instances
/// (data directories of their own) on a scratch database.
@Suite(.serialized, .timeLimit(.minutes(10)), .enabled(if: TestDatabase.url != nil, "no test PostgreSQL (SIBYL_TEST_DATABASE_URL)"))
/// A change reaches the other instance by LISTEN/NOTIFY and a reload, which offers no event to
/// wait on: `eventually` looks again until it is there.
struct SharedSettingsTests {
    static func instance(_ url: DatabaseURL, environment: [String: String] = [:]) throws -> SharedDatabase {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-shared-settings-\(UUID().uuidString)", isDirectory: true)
        let paths = SibylPaths(home: home)
        try paths.createHome()
        return try #require(try SharedDatabase.named(by: environment.merging(["SIBYL_DATABASE_URL": url.connectionString]) { $1 }, paths: paths, logger: Logger(label: "test")))
    }

    /// Two instances, ready, closed after `body`.
    static func pair(_ body: (SharedDatabase, SharedDatabase) async throws -> Void) async throws {
        try await TestDatabase.with { url in
            let (one, two) = (try instance(url), try instance(url))
            do {
                try await one.ready()
                try await two.ready()
                try await body(one, two)
            } catch {
                await one.close()
                await two.close()
                throw error
            }
            await one.close()
            await two.close()
        }
    }

    @Test func aSettingChangedThroughOneInstanceReachesTheOtherWithoutAsking() async throws {
        try await Self.pair { one, two in
            try await one.settings.setValue("qwen2.5-7b", named: "chat.model")
            // The second instance hears of it (LISTEN/NOTIFY) and never reads the table itself.
            try await eventually("the change reached the other instance") { two.settings.configuration.values["chat.model"] == "qwen2.5-7b" }
            try await two.settings.setValue(nil, named: "chat.model")
            try await eventually("the removal reached the first instance") { one.settings.configuration.values["chat.model"] == nil }
        }
    }

    @Test func keysAreSealedAndOpenOnlyOnInstancesHoldingTheDatabaseKey() async throws {
        try await Self.pair { one, two in
            try await one.settings.setKey("sk-shared-0123456789", named: "openai", owner: "")
            #expect(try one.settings.keys(owner: "").secret(named: "openai") == "sk-shared-0123456789")
            // What the database holds is sealed.
            let stored = try await PostgresSettingsStore(database: one.database).snapshot()
            let sealed = try #require(stored.keys[""]?["openai"])
            #expect(!String(decoding: sealed, as: UTF8.self).contains("sk-shared"))
            #expect(stored.fingerprint == (try one.settings.keyring.key())?.fingerprint)

            // The second instance knows the key is there but cannot open it, and says what to do.
            try await eventually("the key reached the other instance") { (try two.settings.keys(owner: "").names()) == ["openai"] }
            #expect(throws: ConfigError.databaseKeyMissing) { try two.settings.keys(owner: "").secret(named: "openai") }
            #expect(two.settings.keyProblem()?.contains("sibyl db key import") == true)
            await #expect(throws: ConfigError.databaseKeyMissing) { try await two.settings.setKey("sk-other", named: "other", owner: "") }
            // A wrong key is refused; the right one opens everything.
            await #expect(throws: ConfigError.self) { try await two.settings.adopt(DatabaseKey.generate()) }
            #expect(try two.settings.keyring.key() == nil)
            try await two.settings.adopt(try #require(try one.settings.keyring.key()))
            #expect(two.settings.keyProblem() == nil)
            #expect(try two.settings.keys(owner: "").secret(named: "openai") == "sk-shared-0123456789")

            // An account's own keys are apart from everyone's, and go with the account.
            try await two.settings.setKey("sk-ada-0123456789", named: "openai", owner: "users/ada")
            try await eventually("ada's key reached the first instance") { (try one.settings.keys(owner: "users/ada").names()) == ["openai"] }
            #expect(try one.settings.keys(owner: "users/ada").secret(named: "openai") == "sk-ada-0123456789")
            #expect(try one.settings.keys(owner: "users/bob").names().isEmpty)
            try await one.removeData(ofAccount: "ada")
            #expect(try one.settings.keys(owner: "users/ada").names().isEmpty)
            #expect(try await one.settings.setKey(nil, named: "openai", owner: "") == true)
            #expect(try await one.settings.setKey(nil, named: "openai", owner: "") == false)
        }
    }

    @Test func twoInstancesStoringTheirFirstKeyAtOnceEndWithOneDatabaseKey() async throws {
        try await Self.pair { one, two in
            async let first: Bool = (try? await one.settings.setKey("sk-one", named: "one", owner: "")) != nil
            async let second: Bool = (try? await two.settings.setKey("sk-two", named: "two", owner: "")) != nil
            let stored = await [first, second]
            let fingerprint = try await PostgresSettingsStore(database: one.database).snapshot().fingerprint
            let held = [try one.settings.keyring.key(), try two.settings.keyring.key()]
            // Whoever stored first made the key; the other kept none of its own (it imports that one).
            #expect(stored.contains(true))
            for (succeeded, key) in zip(stored, held) {
                #expect(succeeded == (key != nil))
                if let key { #expect(key.fingerprint == fingerprint) }
            }
        }
    }
}
