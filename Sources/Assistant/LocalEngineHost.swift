import Foundation
import LocalEngines
import Logging
import SibylCore
import Synchronization

/// The local engines one Sibyl process uses, started on first use and shared by everything in it.
public final class LocalEngineHost: Sendable {
    /// The model name the local chat server answers to.
    public static let chatModelName = "qwen2.5-coder-0.5b-instruct"
    /// Context tokens each local chat request gets.
    public static let chatContextWindow = 8192

    public let layout: EngineLayout
    public let installer: EngineInstaller
    let logDirectory: URL
    let logger: Logger
    private let chatServer = Mutex<LlamaServer?>(nil)

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

    /// The local chat server (not yet started: `baseURL()` starts it).
    public func chat() throws -> LlamaServer {
        try requireInstalled("chat")
        return chatServer.withLock { server in
            if let server { return server }
            let created = LlamaServer(
                configuration: .init(
                    executable: layout.llamaServer,
                    model: layout.chatModel,
                    alias: Self.chatModelName,
                    contextPerSlot: Self.chatContextWindow,
                    logFile: logDirectory.appendingPathComponent("llama-server.log")
                ),
                logger: logger
            )
            server = created
            return created
        }
    }

    /// Stops every engine this process started.
    public func shutdown() async {
        if let server = chatServer.withLock({ $0 }) { await server.stop() }
    }
}
