import Foundation
import LocalEngines
import Logging
import SibylCore
import Synchronization

/// The local chat models Sibyl installs; `chat.local_model` picks one, `--model` overrides it.
public enum LocalChatModel: String, CaseIterable, Sendable {
    /// Qwen2.5-Coder 1.5B Instruct (component `chat`): the default, right far more often.
    case standard = "default"
    /// Qwen2.5-Coder 0.5B Instruct (component `chat-fast`): about three times quicker and a third
    /// of the memory (0.8 GB against 2.2 GB as Sibyl runs them), but often wrong on facts.
    case fast

    /// The model name its llama-server answers to, and that answers record.
    public var name: String {
        switch self {
        case .standard: "qwen2.5-coder-1.5b-instruct"
        case .fast: "qwen2.5-coder-0.5b-instruct"
        }
    }

    /// The component that installs it.
    public var component: String {
        switch self {
        case .standard: "chat"
        case .fast: "chat-fast"
        }
    }

    public func file(in layout: EngineLayout) -> URL {
        switch self {
        case .standard: layout.chatModel
        case .fast: layout.fastChatModel
        }
    }

    /// The model a name means: `default`, `fast`, a component or a model name.
    public static func named(_ text: String) -> LocalChatModel? {
        let wanted = text.trimmingCharacters(in: .whitespaces).lowercased()
        return allCases.first { $0.rawValue == wanted || $0.name == wanted || $0.component == wanted }
    }

    /// The choices in words, for messages.
    public static var choices: String {
        allCases.map { "\($0.rawValue) (\($0.name))" }.joined(separator: ", ")
    }
}

/// The local engines one Sibyl process uses, started on first use and shared by everything in it.
public final class LocalEngineHost: Sendable {
    /// Context tokens each local chat request gets.
    public static let chatContextWindow = 8192

    public let layout: EngineLayout
    public let installer: EngineInstaller
    let logDirectory: URL
    let logger: Logger
    private let chatServers = Mutex<[LocalChatModel: LlamaServer]>([:])

    public init(layout: EngineLayout, logDirectory: URL, logger: Logger) {
        self.layout = layout
        self.installer = EngineInstaller(layout: layout)
        self.logDirectory = logDirectory
        self.logger = logger
    }

    /// Fails with the install command when a component is not fully installed.
    public func requireInstalled(_ component: String) throws {
        guard let status = installer.status(of: component) else { return }
        guard status.installed else {
            throw LocalEngineError.notInstalled(component: component, missing: status.missing.joined(separator: ", "))
        }
    }

    /// The local chat server of a model (not yet started: `baseURL()` starts it). Each model
    /// has one server, started when first asked for.
    public func chat(_ model: LocalChatModel = .standard) throws -> LlamaServer {
        try requireInstalled(model.component)
        return chatServers.withLock { servers in
            if let server = servers[model] { return server }
            let created = LlamaServer(
                configuration: .init(
                    executable: layout.llamaServer,
                    model: model.file(in: layout),
                    alias: model.name,
                    contextPerSlot: Self.chatContextWindow,
                    logFile: logDirectory.appendingPathComponent(model == .standard ? "llama-server.log" : "llama-server-\(model.rawValue).log")
                ),
                logger: logger
            )
            servers[model] = created
            return created
        }
    }

    /// Stops every engine this process started.
    public func shutdown() async {
        for server in chatServers.withLock({ Array($0.values) }) { await server.stop() }
    }
}
