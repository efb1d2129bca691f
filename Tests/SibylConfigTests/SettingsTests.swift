import Foundation
import Testing
import SibylCore
@testable import SibylConfig

/// A fresh data directory per test.
func temporaryPaths() throws -> SibylPaths {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-config-\(UUID().uuidString)", isDirectory: true)
    let paths = SibylPaths(home: url)
    try paths.createHome()
    return paths
}

@Suite("Settings: environment over file over defaults", .timeLimit(.minutes(10)))
struct SettingsTests {
    @Test func dataDirectoryComesFromTheEnvironment() {
        #expect(SibylPaths(environment: ["SIBYL_HOME": "/srv/sibyl", "HOME": "/home/u"]).home.path == "/srv/sibyl")
        #expect(SibylPaths(environment: ["XDG_DATA_HOME": "/x", "HOME": "/home/u"]).home.path == "/x/sibyl")
        #expect(SibylPaths(environment: ["HOME": "/home/u"]).home.path == "/home/u/.local/share/sibyl")
    }

    @Test func defaultsApplyWhenNothingIsSet() throws {
        let settings = try Settings(paths: temporaryPaths(), environment: [:])
        #expect(settings.resolve("chat.model") == ResolvedSetting(key: "chat.model", value: "gpt-4o-mini", source: .defaultValue))
        #expect(settings[.timeout] == 120)
        #expect(settings.resolve("base_url").source == .unset)
    }

    @Test func theFileOverridesDefaultsAndTheEnvironmentOverridesTheFile() throws {
        let paths = try temporaryPaths()
        var settings = try Settings(paths: paths, environment: [:])
        try settings.set("chat.model", to: "from-file")
        #expect(try Settings(paths: paths, environment: [:]).resolve("chat.model").source == .file)
        let withEnvironment = try Settings(paths: paths, environment: ["SIBYL_CHAT_MODEL": "from-env"])
        #expect(withEnvironment.resolve("chat.model") == ResolvedSetting(key: "chat.model", value: "from-env", source: .environment("SIBYL_CHAT_MODEL")))
    }

    @Test func capabilitySettingsFallBackToGeneralOnes() throws {
        let paths = try temporaryPaths()
        var settings = try Settings(paths: paths, environment: [:])
        try settings.set("base_url", to: "http://general:1/v1")
        try settings.set("stt.base_url", to: "http://speech:2/v1")
        #expect(settings.resolve(.baseURL(for: .chat), over: .baseURL).value == "http://general:1/v1")
        #expect(settings.resolve(.baseURL(for: .stt), over: .baseURL).value == "http://speech:2/v1")
        // The environment's general base URL beats a capability's own from the file.
        let env = try Settings(paths: paths, environment: ["OPENAI_BASE_URL": "http://env:3/v1"])
        #expect(env.resolve(.baseURL(for: .stt), over: .baseURL).value == "http://env:3/v1")
        // A capability's own environment variable beats everything.
        let specific = try Settings(paths: paths, environment: ["OPENAI_BASE_URL": "http://env:3/v1", "SIBYL_STT_BASE_URL": "http://env-stt:4/v1"])
        #expect(specific.resolve(.baseURL(for: .stt), over: .baseURL).value == "http://env-stt:4/v1")
        #expect(specific.resolve(.baseURL(for: .chat), over: .baseURL).value == "http://env:3/v1")
    }

    @Test func badKeysAndValuesAreRefusedAndNothingIsWritten() throws {
        let paths = try temporaryPaths()
        var settings = try Settings(paths: paths, environment: [:])
        #expect(throws: ConfigError.unknownKey("chat.modle")) { try settings.set("chat.modle", to: "x") }
        #expect(throws: ConfigError.self) { try settings.set("timeout", to: "soon") }
        #expect(throws: ConfigError.self) { try settings.set("base_url", to: "localhost:8080") }
        #expect(throws: ConfigError.self) { try settings.set("titles", to: "fancy") }
        #expect(!FileManager.default.fileExists(atPath: paths.configFile.path))
        #expect(ConfigError.unknownKey("chat.modle").errorDescription?.hasPrefix("Unknown setting 'chat.modle'") == true)
        #expect(ConfigError.unknownKey("chat.modle").remedy == .listSettings)
        // A slip of the keyboard is answered with the setting meant.
        #expect(ConfigKey.suggestions(for: "chat.modle").first == "chat.model")
        #expect(ConfigKey.suggestions(for: "docs.lexical_wieght").first == "docs.lexical_weight")
        #expect(ConfigKey.suggestions(for: "lexical_weight") == ["docs.lexical_weight"])
        #expect(ConfigKey.suggestions(for: "zzzz.qqqq").isEmpty)
        #expect(ConfigError.unknownKey("serve.prot").errorDescription?.contains("Did you mean serve.port") == true)
    }

    @Test func unsetRestoresTheDefault() throws {
        let paths = try temporaryPaths()
        var settings = try Settings(paths: paths, environment: [:])
        try settings.set("retries", to: "5")
        #expect(settings[.retries] == 5)
        try settings.unset("retries")
        #expect(try Settings(paths: paths, environment: [:])[.retries] == 2)
    }

    @Test func aHandWrittenFileWithNumbersIsRead() throws {
        let paths = try temporaryPaths()
        try Data(#"{"timeout": 30, "chat.model": "m"}"#.utf8).write(to: paths.configFile)
        let settings = try Settings(paths: paths, environment: [:])
        #expect(settings[.timeout] == 30)
        #expect(settings[.model(for: .chat)] == "m")
    }

    @Test func aBrokenFileIsAClearError() throws {
        let paths = try temporaryPaths()
        try Data("{not json".utf8).write(to: paths.configFile)
        let error = #expect(throws: ConfigError.self) { try Settings(paths: paths, environment: [:]) }
        #expect(error?.errorDescription?.contains(paths.configFile.path) == true)
    }
}

@Suite("Secrets and provider resolution", .timeLimit(.minutes(10)))
struct SecretsTests {
    @Test func secretsFileIsOwnerOnlyAndSurvivesReopen() throws {
        let paths = try temporaryPaths()
        let store = SecretStore(file: paths.secretsFile)
        try store.set("sk-live-abcdefghijklmnop", named: "openai")
        #expect(store.permissions() == 0o600)
        #expect(try SecretStore(file: paths.secretsFile).secret(named: "openai") == "sk-live-abcdefghijklmnop")
        #expect(try store.names() == ["openai"])
        #expect(try store.remove(named: "openai"))
        #expect(try !store.remove(named: "openai"))
    }

    /// The file holds no key in the clear; without its key file it opens for no one; a plain store
    /// from an older Sibyl is read and sealed.
    @Test func keysAreSealedAtRestAndOldPlainStoresAreSealedOnRead() throws {
        let paths = try temporaryPaths()
        let store = SecretStore(file: paths.secretsFile)
        try store.set("sk-live-abcdefghijklmnop", named: "openai")
        let onDisk = try Data(contentsOf: paths.secretsFile)
        #expect(onDisk.range(of: Data("sk-live".utf8)) == nil && onDisk.range(of: Data("abcdefghijklmnop".utf8)) == nil)
        #expect(String(decoding: onDisk, as: UTF8.self).contains("sibyl.secrets"))
        #expect((try FileManager.default.attributesOfItem(atPath: store.keyFile.path)[.posixPermissions] as? Int) == 0o600)
        #expect(try Data(contentsOf: store.keyFile).count == 32)

        // Another data directory's key cannot open it; a missing key file says so.
        let other = try temporaryPaths()
        try SecretStore(file: other.secretsFile).set("x-1", named: "x")
        try FileManager.default.removeItem(at: store.keyFile)
        try FileManager.default.copyItem(at: SecretStore(file: other.secretsFile).keyFile, to: store.keyFile)
        let wrongKey = #expect(throws: ConfigError.self) { try store.secret(named: "openai") }
        #expect(wrongKey?.errorDescription?.contains("cannot be opened") == true)
        try FileManager.default.removeItem(at: store.keyFile)
        let missing = #expect(throws: ConfigError.self) { try store.secret(named: "openai") }
        #expect(missing?.errorDescription?.contains("is missing") == true)

        let old = try temporaryPaths()
        try FileManager.default.createDirectory(at: old.home, withIntermediateDirectories: true)
        try Data(#"{"openai": "sk-plain-0123456789"}"#.utf8).write(to: old.secretsFile)
        #expect(try SecretStore(file: old.secretsFile).secret(named: "openai") == "sk-plain-0123456789")
        #expect(try Data(contentsOf: old.secretsFile).range(of: Data("sk-plain".utf8)) == nil, "sealed as soon as it was read")
        #expect(try SecretStore(file: old.secretsFile).secret(named: "openai") == "sk-plain-0123456789")
    }

    /// Many stores sealing their first key at once, as separate processes would: one key wins and
    /// every store's keys open with it.
    @Test func storesMadeAtOnceShareOneSealingKey() async throws {
        let paths = try temporaryPaths()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<16 {
                group.addTask { try? SecretStore(file: paths.secretsFile).set("k-\(index)-0123456789", named: "key\(index)") }
            }
        }
        let names = try SecretStore(file: paths.secretsFile).names()
        #expect(!names.isEmpty, "the last writer's keys open with the one key file")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: paths.home.path).filter { $0.hasPrefix(".secrets.key.") }
        #expect(leftovers.isEmpty)
    }

    @Test func looserPermissionsAreTightened() throws {
        let paths = try temporaryPaths()
        let store = SecretStore(file: paths.secretsFile)
        try store.set("k-123", named: "other")
        chmod(paths.secretsFile.path, 0o644)
        _ = try store.names()
        #expect(store.permissions() == 0o600)
    }

    @Test func badNamesAreRefused() throws {
        let store = SecretStore(file: try temporaryPaths().secretsFile)
        #expect(throws: ConfigError.invalidSecretName("my key")) { try store.set("x", named: "my key") }
    }

    @Test func keysResolveFromEnvironmentThenStore() throws {
        let paths = try temporaryPaths()
        try SecretStore(file: paths.secretsFile).set("sk-stored-000000000000", named: "openai")
        try SecretStore(file: paths.secretsFile).set("sk-speech-111111111111", named: "speech")
        var settings = try Settings(paths: paths, environment: [:])
        try settings.set("tts.key", to: "speech")

        let chat = try settings.provider(for: .chat, secrets: settings.secrets)
        #expect(chat.apiKey == "sk-stored-000000000000")
        #expect(chat.keySource == "stored key 'openai'")
        #expect(chat.isOpenAI)
        #expect(try settings.provider(for: .tts, secrets: settings.secrets).apiKey == "sk-speech-111111111111")

        let env = try Settings(paths: paths, environment: ["OPENAI_API_KEY": "sk-env-22222222", "SIBYL_EMBEDDINGS_API_KEY": "sk-emb-3333333"])
        #expect(try env.provider(for: .chat, secrets: env.secrets).keySource == "env OPENAI_API_KEY")
        #expect(try env.provider(for: .embeddings, secrets: env.secrets).apiKey == "sk-emb-3333333")
        // A capability that names another stored key does not take OPENAI_API_KEY.
        #expect(try env.provider(for: .tts, secrets: env.secrets).apiKey == "sk-speech-111111111111")
    }

    @Test func aLocalServerNeedsNoKey() throws {
        let settings = try Settings(paths: temporaryPaths(), environment: ["OPENAI_BASE_URL": "http://127.0.0.1:8080/v1"])
        let chat = try settings.provider(for: .chat, secrets: settings.secrets)
        #expect(chat.baseURL == "http://127.0.0.1:8080/v1")
        #expect(chat.apiKey == nil)
        #expect(!chat.isOpenAI)
        #expect(chat.modelSource == .defaultValue)
    }
}
