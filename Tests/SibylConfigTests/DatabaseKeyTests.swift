import Foundation
import Testing
@testable import SibylConfig

/// Keys in memory, as a shared database's would be.
private struct FixedKeys: SecretReading {
    var keys: [String: String]
    func secret(named name: String) throws -> String? { keys[name] }
    func names() throws -> [String] { keys.keys.sorted() }
}

@Suite("The database key, and settings a shared database holds", .timeLimit(.minutes(10)))
struct DatabaseKeyTests {
    @Test func aSealedKeyOpensOnlyForItsOwnRowAndItsOwnDatabaseKey() throws {
        let key = DatabaseKey.generate()
        let sealed = try key.seal("sk-live-1234567890", owner: "users/ada", name: "openai")
        #expect(!String(decoding: sealed, as: UTF8.self).contains("sk-live"))
        #expect(try key.open(sealed, owner: "users/ada", name: "openai") == "sk-live-1234567890")
        // Moved to another account, renamed, or opened with another key: refused.
        #expect(throws: ConfigError.sealedKeyUnreadable(name: "openai")) { try key.open(sealed, owner: "users/bob", name: "openai") }
        #expect(throws: ConfigError.sealedKeyUnreadable(name: "anthropic")) { try key.open(sealed, owner: "users/ada", name: "anthropic") }
        #expect(throws: ConfigError.sealedKeyUnreadable(name: "openai")) { try DatabaseKey.generate().open(sealed, owner: "users/ada", name: "openai") }
        var tampered = sealed
        tampered[tampered.startIndex + 14] ^= 1
        #expect(throws: ConfigError.sealedKeyUnreadable(name: "openai")) { try key.open(tampered, owner: "users/ada", name: "openai") }
        // Sealing twice gives different bytes (a fresh nonce each time).
        #expect(try key.seal("same", owner: "", name: "x") != key.seal("same", owner: "", name: "x"))
    }

    @Test func theExportedFormRoundTripsAndTheFingerprintTellsKeysApart() throws {
        let key = DatabaseKey.generate()
        let back = try DatabaseKey(exported: "  \(key.exported)\n")
        #expect(back == key)
        #expect(back.fingerprint == key.fingerprint)
        #expect(key.fingerprint.count == 16 && key.fingerprint.allSatisfy(\.isHexDigit))
        #expect(DatabaseKey.generate().fingerprint != key.fingerprint)
        #expect(!key.exported.contains(key.fingerprint))
        #expect(throws: ConfigError.invalidDatabaseKey) { try DatabaseKey(exported: "not a key") }
        #expect(throws: ConfigError.invalidDatabaseKey) { try DatabaseKey(exported: Data(count: 16).base64EncodedString()) }
    }

    @Test func theKeyringPrefersTheEnvironmentAndKeepsItsKeyInTheSecretsStore() throws {
        let paths = try temporaryPaths()
        let stored = DatabaseKey.generate()
        let keyring = DatabaseKeyring(paths: paths, environment: [:])
        #expect(try keyring.key() == nil)
        try keyring.keep(stored)
        #expect(try keyring.key() == stored)
        // Sealed at rest like every stored key, and readable by the owner only.
        let file = try String(contentsOf: paths.secretsFile, encoding: .utf8)
        #expect(!file.contains(stored.exported))
        #expect(SecretStore(file: paths.secretsFile).permissions() == 0o600)
        let given = DatabaseKey.generate()
        let fromEnvironment = DatabaseKeyring(paths: paths, environment: [DatabaseKey.environmentVariable: given.exported])
        #expect(fromEnvironment.fromEnvironment)
        #expect(try fromEnvironment.key() == given)
        try keyring.forget()
        #expect(try keyring.key() == nil)
    }

    @Test func sharedSettingsComeFromTheDatabaseAndTheMachinesOwnFromTheFile() throws {
        let paths = try temporaryPaths()
        var file = try Settings(paths: paths, environment: [:])
        try file.set("chat.model", to: "from-file")
        try file.set("serve.port", to: "9001")
        try file.set("voice.max_seconds", to: "12")
        let shared = SharedConfiguration(values: ["chat.model": "from-database", "serve.port": "7000"], keys: FixedKeys(keys: ["openai": "sk-db"]))
        let settings = try Settings(paths: paths, environment: [:], shared: shared)
        #expect(settings.resolve("chat.model") == ResolvedSetting(key: "chat.model", value: "from-database", source: .database))
        // Where this machine listens, and its microphone, are its own.
        #expect(settings.resolve("serve.port") == ResolvedSetting(key: "serve.port", value: "9001", source: .file))
        #expect(settings.resolve("voice.max_seconds").value == "12")
        // A shared setting the database lacks takes its default, not the file's value.
        let sparse = try Settings(paths: paths, environment: [:], shared: SharedConfiguration(values: [:], keys: FixedKeys(keys: [:])))
        #expect(sparse.resolve("chat.model") == ResolvedSetting(key: "chat.model", value: "gpt-4o-mini", source: .defaultValue))
        #expect(sparse.sharedFileValues == ["chat.model": "from-file"])
        // The environment still wins.
        let overridden = try Settings(paths: paths, environment: ["SIBYL_CHAT_MODEL": "from-env"], shared: shared)
        #expect(overridden.resolve("chat.model").source == .environment("SIBYL_CHAT_MODEL"))
        // The database's keys are the ones everyone uses.
        #expect(try settings.provider(for: .chat, secrets: settings.secrets).apiKey == "sk-db")
    }

    @Test func theDatabaseKeyIsNeverSentAsAnAPIKey() throws {
        let paths = try temporaryPaths()
        try DatabaseKeyring(paths: paths, environment: [:]).keep(DatabaseKey.generate())
        var settings = try Settings(paths: paths, environment: [:])
        try settings.set("chat.key", to: DatabaseKey.secretName)
        let provider = try settings.provider(for: .chat, secrets: settings.secrets)
        #expect(provider.apiKey == nil && provider.keySource == "none")
    }
}
