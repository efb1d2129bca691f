import Foundation
import SibylCore
import Testing
@testable import SibylConfig

@Suite("Typed settings: one declaration gives the key, the type, the default and the environment", .timeLimit(.minutes(10)))
struct TypedSettingsTests {
    @Test func everyDeclaredSettingHasOneUniqueName() {
        let names = ConfigKey.all.map(\.name)
        #expect(Set(names).count == names.count)
        for name in names { #expect(ConfigKey.named(name)?.name == name) }
    }

    @Test func aDefaultIsTheDeclaredValueAndReadsBackAsItself() throws {
        let settings = try Settings(paths: temporaryPaths(), environment: [:])
        #expect(settings[.servePort] == 8080)
        #expect(settings[.docsLexicalWeight] == RetrievalDefaults.lexicalWeight)
        #expect(settings[.docsIndex] == .automatic)
        #expect(settings[.serveSecureCookies] == false)
        #expect(settings[.glassesDevice] == nil)
        #expect(settings[.chatLocalModel] == .standard)
        // Shells show the default as people write it.
        #expect(Setting<Double>.docsVectorWeight.key.defaultValue == "1")
        #expect(Setting<Double>.voiceThresholdDB.key.defaultValue == "-45")
        #expect(Setting<Double>.docsThreshold.key.defaultValue == "0.3")
        #expect(Setting<String?>.glassesDevice.key.defaultValue == nil)
    }

    @Test func choicesComeFromTheirEnumAndAreCheckedWhenSet() throws {
        #expect(Setting<IndexChoice>.docsIndex.key.choices == IndexChoice.allCases.map(\.rawValue))
        #expect(Setting<Bool>.serveSecureCookies.key.choices == ["on", "off"])
        #expect(Setting<ProviderPreference>.provider(for: .chat).key.choices == ["auto", "local", "remote"])
        let paths = try temporaryPaths()
        var settings = try Settings(paths: paths, environment: [:])
        try settings.set("docs.fusion", to: "rank")
        try settings.set("serve.secure_cookies", to: "on")
        try settings.set("glasses.kind", to: "frame")
        #expect(settings[.docsFusion] == .rank)
        #expect(settings[.serveSecureCookies])
        #expect(settings[.glassesKind] == .frame)
        #expect(throws: ConfigError.self) { try settings.set("glasses.kind", to: "goggles") }
    }

    @Test func localModelsAreAlsoSetByTheirModelOrComponentName() throws {
        var settings = try Settings(paths: temporaryPaths(), environment: [:])
        #expect(settings[.embeddingsLocalModel] == .standard)
        try settings.set("embeddings.local_model", to: "all-mpnet-base-v2")
        #expect(settings[.embeddingsLocalModel] == .large)
        #expect(settings.resolve("embeddings.local_model").value == "large", "kept as the choice's own word")
        try settings.set("embeddings.local_model", to: "embeddings")
        #expect(settings[.embeddingsLocalModel] == .standard)
        try settings.set("chat.local_model", to: "Qwen2.5-Coder-0.5B-Instruct")
        #expect(settings[.chatLocalModel] == .fast)
        #expect(throws: ConfigError.self) { try settings.set("embeddings.local_model", to: "all-MiniLM-L12-v2") }
    }

    @Test func toolServersAreCheckedWhenSetAndKeptOnTheMachine() throws {
        var settings = try Settings(paths: temporaryPaths(), environment: [:])
        #expect(settings[.toolsEnabled] == false)
        #expect(settings[.toolsServers].servers.isEmpty)
        try settings.set("tools.servers", to: "notes = python3 notes.py;web=http://127.0.0.1:8000/mcp")
        #expect(settings[.toolsServers].servers.map(\.name) == ["notes", "web"])
        #expect(settings.resolve("tools.servers").value == "notes=python3 notes.py; web=http://127.0.0.1:8000/mcp")
        #expect(throws: ConfigError.self) { try settings.set("tools.servers", to: "notes=python3 a.py; notes=python3 b.py") }
        #expect(Setting<ToolServerList>.toolsServers.key.scope == .machine)
    }

    @Test func aValueThatDoesNotParseCountsAsUnset() throws {
        let settings = try Settings(paths: temporaryPaths(), environment: ["SIBYL_SERVE_PORT": "eighty", "SIBYL_DOCS_INDEX": "fancy", "SIBYL_CHAT_MAX_TOKENS": "-3"])
        #expect(settings[.servePort] == 8080)
        #expect(settings[.docsIndex] == .automatic)
        #expect(settings[.chatMaxTokens] == nil)
    }

    @Test func theEnvironmentNamesAreDeclaredWithTheSetting() throws {
        let settings = try Settings(paths: temporaryPaths(), environment: ["SIBYL_SERVE_PORT": "9090", "SIBYL_CHAT_LOCAL_MODEL": "chat-fast"])
        #expect(settings[.servePort] == 9090)
        #expect(settings.source(of: .servePort) == .environment("SIBYL_SERVE_PORT"))
        // The local model is also found by its component's name.
        #expect(settings[.chatLocalModel] == .fast)
    }

    @Test func machineSettingsStayInTheFileWhenADatabaseIsShared() {
        #expect(Setting<Int>.servePort.key.scope == .machine)
        #expect(Setting<Int>.voiceHangoverMilliseconds.key.scope == .machine)
        #expect(Setting<String?>.glassesDevice.key.scope == .machine)
        #expect(Setting<Int>.serveMaxTurnsPerClient.key.scope == .shared)
        #expect(Setting<String>.model(for: .chat).key.scope == .shared)
    }
}
