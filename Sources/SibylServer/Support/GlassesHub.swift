import Assistant
import Foundation
import Monocle
import MonocleEmulator
import Synchronization

/// The glasses linked to this server: browsers relaying real glasses over the WebSocket, and at
/// most one virtual Monocle run by the server itself. Each is a `GlassesSession` of the runtime.
final class GlassesHub: Sendable {
    /// What is known of one linked pair of glasses.
    struct Link: Sendable {
        var id: UUID
        /// `relay` or `emulator`.
        var kind: String
        var state: MonocleState = .connecting
        var device: DeviceInfo?
        var lastQuestion: String?
        var lastAnswer: String?
        var lastError: String?
        var notice: String?
        var startedAt = Date()
    }

    private struct Emulated: Sendable {
        var id: UUID
        var emulator: MonocleEmulator
        var session: GlassesSession
        var task: Task<Void, Never>
    }

    let runtime: SibylRuntime
    private let links = Mutex<[UUID: Link]>([:])
    private let emulated = Mutex<Emulated?>(nil)

    init(runtime: SibylRuntime) {
        self.runtime = runtime
    }

    /// Every linked pair of glasses, oldest first.
    var all: [Link] {
        links.withLock { Array($0.values) }.sorted { $0.startedAt < $1.startedAt }
    }

    /// Serves one browser relaying real glasses, until it leaves.
    func serveRelay(_ transport: RelayTransport, options: GlassesSessionOptions) async {
        let id = UUID()
        links.withLock { $0[id] = Link(id: id, kind: "relay") }
        defer { _ = links.withLock { $0.removeValue(forKey: id) } }
        do {
            let session = try runtime.glassesSession(transport: transport, options: options)
            await session.run { [weak self] event in self?.record(event, for: id) }
        } catch {
            runtime.log(.error, "glasses.relay", ConversationEngine.describe(error))
        }
    }

    /// Starts the virtual Monocle with Sibyl's app on it; fails when one already runs.
    func startEmulator(options: GlassesSessionOptions) async throws -> Link {
        guard emulated.withLock({ $0 == nil }) else {
            throw APIError(.conflict, code: "already_running", "The virtual Monocle is already running; stop it first.")
        }
        let module = runtime.local.layout.microPythonModule
        guard FileManager.default.fileExists(atPath: module.path) else {
            throw APIError(.serviceUnavailable, code: "engine_not_installed", "The virtual Monocle's MicroPython interpreter is not installed.", remedy: .install(component: "emulator"))
        }
        let emulator = MonocleEmulator(
            configuration: EmulatorConfiguration(interpreter: MicroPythonInterpreter(module: module)),
            filesystem: runtime.paths.home.appendingPathComponent("monocle/server", isDirectory: true)
        )
        try await emulator.powerOn()
        let session = try runtime.glassesSession(transport: EmulatorTransport(emulator: emulator, maximumWriteLength: 253), options: options)
        let id = UUID()
        links.withLock { $0[id] = Link(id: id, kind: "emulator") }
        let task = Task { [weak self] in
            await session.run { [weak self] event in self?.record(event, for: id) }
        }
        let started = Emulated(id: id, emulator: emulator, session: session, task: task)
        let kept = emulated.withLock { current -> Bool in
            guard current == nil else { return false }
            current = started
            return true
        }
        guard kept else {
            await stop(started)
            throw APIError(.conflict, code: "already_running", "The virtual Monocle is already running; stop it first.")
        }
        runtime.log(.info, "glasses.emulator", "started the virtual Monocle")
        return links.withLock { $0[id] } ?? Link(id: id, kind: "emulator")
    }

    /// Stops the virtual Monocle; false when none runs.
    @discardableResult
    func stopEmulator() async -> Bool {
        guard let running = emulated.withLock({ current in defer { current = nil }; return current }) else { return false }
        await stop(running)
        runtime.log(.info, "glasses.emulator", "stopped the virtual Monocle")
        return true
    }

    /// The virtual Monocle, when it runs.
    var emulator: MonocleEmulator? { emulated.withLock { $0?.emulator } }

    /// Ends every session.
    func stopAll() async {
        await stopEmulator()
    }

    private func stop(_ running: Emulated) async {
        await running.session.stop()
        running.task.cancel()
        _ = await running.task.value
        await running.emulator.powerOff()
        _ = links.withLock { $0.removeValue(forKey: running.id) }
    }

    private func record(_ event: GlassesEvent, for id: UUID) {
        links.withLock { links in
            guard var link = links[id] else { return }
            switch event {
            case .state(let state):
                link.state = state
                if case .running(let device) = state { link.device = device }
            case .notice(let text): link.notice = text
            case .heard(let text): link.lastQuestion = text
            case .answered(let question, let answer, _):
                link.lastQuestion = question
                link.lastAnswer = answer
                link.lastError = nil
            case .failed(let shown, _): link.lastError = shown
            case .cancelled: link.lastError = "cancelled by the wearer"
            }
            links[id] = link
        }
    }
}
