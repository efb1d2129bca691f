import Assistant
public import Foundation
public import LocalEngines
public import Logging
public import SibylCore
import Synchronization

extension LocalChatModel {
    /// The model file its component installs.
    public func file(in layout: EngineLayout) -> URL {
        switch self {
        case .standard: layout.chatModel
        case .fast: layout.fastChatModel
        }
    }
}

/// The local engines one Sibyl process uses, started on first use and shared by everything in it.
public final class LocalEngineHost: Sendable {
    /// Context tokens each local chat request gets.
    public static let chatContextWindow = 8192

    public let layout: EngineLayout
    public let installer: EngineInstaller
    /// Silero VAD, loaded on first use.
    public let voiceDetector: SileroVoiceDetector
    /// Text-to-speech: Piper's voice (loaded on first use, then kept) and espeak-ng.
    public let textToSpeech: LocalSpeechSynthesizer
    let logDirectory: URL
    let logger: Logger
    /// Installs of missing engines under way on first use, one per component (see `ensureInstalled`).
    let installing = Mutex<[String: Task<Void, any Error>]>([:])
    /// Progress of the installs this process starts on first use (the same engines serve every
    /// account, so every open page may show it); see `EngineInstallProgress`.
    public let installs = LiveEvents()
    private let chatServers = Mutex<[LocalChatModel: LlamaServer]>([:])
    private let speech = Mutex<LocalTranscriber?>(nil)

    /// The package index installs on first use download from.
    let packageIndex: String

    public init(layout: EngineLayout, packageIndex: String = EngineInstaller.packageIndex(), logDirectory: URL, logger: Logger) {
        self.layout = layout
        self.packageIndex = packageIndex
        self.installer = EngineInstaller(layout: layout, index: packageIndex)
        self.voiceDetector = SileroVoiceDetector(layout: layout)
        self.textToSpeech = LocalSpeechSynthesizer(piper: PiperSynthesizer(layout: layout))
        self.logDirectory = logDirectory
        self.logger = logger
    }

    /// Fails with the install command when a component is not fully installed.
    public func requireInstalled(_ component: String) throws {
        guard let status = installer.status(of: component), !status.installed else { return }
        throw LocalEngineError.notInstalled(component: component, missing: status.missing.joined(separator: ", "))
    }

    /// The local chat server of a model (not yet started: `baseURL()` starts it). Each model
    /// has one server, started when first asked for. A missing model is installed first when
    /// `automatically`, else it fails naming the install command.
    public func chat(_ model: LocalChatModel = .standard, installing automatically: Bool) async throws -> LlamaServer {
        try await ensureInstalled(model.component, automatically: automatically)
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

    /// The local speech-to-text engines: Moonshine in this process for English questions, and
    /// whisper-server for the rest, each loaded once (on first use, or by `start()`) and shared by
    /// every surface of this process.
    public func speechToText() throws -> LocalTranscriber {
        try requireInstalled("stt")
        return speech.withLock { current in
            if let current { return current }
            let created = LocalTranscriber(
                moonshine: MoonshineTranscriber(layout: layout),
                whisper: WhisperServerTranscriber(
                    configuration: .init(layout: layout, logFile: logDirectory.appendingPathComponent("whisper-server.log")),
                    logger: logger
                )
            )
            current = created
            return created
        }
    }

    /// Stops every engine this process started.
    public func shutdown() async {
        for server in chatServers.withLock({ Array($0.values) }) { await server.stop() }
        await speech.withLock { $0 }?.whisper.stop()
    }
}
