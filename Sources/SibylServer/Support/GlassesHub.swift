import Assistant
import Foundation
import Glasses
import GlassesRelay
import MonocleEmulator
import SibylApp
import SibylCore
import Synchronization

/// The glasses linked to this server: browsers relaying real glasses over the WebSocket, and
/// virtual Monocles run by the server itself, at most one per account. Each is a `GlassesSession`
/// of its owner's runtime, so what the wearer asks is kept with that account's conversations; an
/// owner sees and drives only their own glasses.
final class GlassesHub: Sendable {
    /// What is known of one linked pair of glasses.
    struct Link: Sendable {
        var id: UUID
        /// `relay` or `emulator`.
        var kind: String
        /// Whose glasses: an account's id, or `local` on an open server.
        var owner: String
        /// `monocle` or `frame`.
        var glasses: String { state.kind.rawValue }
        var state = GlassesState(kind: .monocle, phase: .connecting)
        /// What the glasses report once Sibyl's app runs.
        var device: GlassesDeviceInfo?
        var lastQuestion: String?
        var lastAnswer: String?
        var lastError: String?
        var notice: String?
        var startedAt = Date()
        /// `assistant` (questions and answers) or `captions` (live captions).
        var mode = "assistant"
        /// Live captions: the last lines shown (translated when asked), the one being spoken,
        /// and whether the wearer paused them.
        var captionLines: [String] = []
        var forming = ""
        var paused = false
        /// The owner's live events: their open pages learn of every change to the link.
        var events: LiveEvents?
        /// A firmware (and FPGA) install on this link, when one was asked for.
        var update: UpdateProgress?

        /// The connection's new state, and what the glasses reported once the app ran.
        mutating func observe(_ state: GlassesState) {
            self.state = state
            if let device = state.deviceInfo { self.device = device }
            update?.observe(state)
        }
    }

    /// How a firmware and FPGA install goes, as one progress across both steps: the firmware
    /// fills the first half and the FPGA image the second when both are installed, else the one
    /// step fills it all. It ends when the app runs again: done (the glasses report the versions
    /// asked for), up to date (they already did, nothing was written) or failed.
    struct UpdateProgress: Sendable, Equatable {
        enum Outcome: String, Sendable { case running, done, upToDate, failed }

        /// The versions being installed.
        var firmware: String?
        var fpga: String?
        /// `firmware` or `fpga` while one is written.
        var step: String?
        /// 0…1 across both steps.
        var progress = 0.0
        var outcome = Outcome.running
        var error: String?
        /// Whether anything was written on this link.
        private var wrote = false

        init(firmware: String?, fpga: String?) {
            self.firmware = firmware
            self.fpga = fpga
        }

        mutating func observe(_ state: GlassesState) {
            switch state.phase {
            case .updatingFirmware(let fraction):
                begin("firmware")
                progress = fpga == nil ? fraction : fraction / 2
            case .updatingFPGA(let fraction):
                begin("fpga")
                progress = firmware == nil ? fraction : 0.5 + fraction / 2
            case .running(let info):
                guard outcome == .running || outcome == .failed else { return }
                step = nil
                var behind: [String] = []
                if let firmware, info.firmware != firmware { behind.append("firmware \(info.firmware ?? "of no version") instead of \(firmware)") }
                if let fpga, info.fpga != fpga { behind.append("FPGA \(info.fpga ?? "of no version") instead of \(fpga)") }
                if behind.isEmpty {
                    outcome = wrote ? .done : .upToDate
                    progress = 1
                    error = nil
                } else {
                    outcome = .failed
                    error = error ?? "The glasses report \(behind.joined(separator: " and "))."
                }
            case .disconnected, .connecting, .preparing, .uploadingApp, .starting:
                break
            }
        }

        /// The firmware install failed; the connection may still try again.
        mutating func failed(_ reason: String) {
            outcome = .failed
            error = reason
        }

        private mutating func begin(_ step: String) {
            self.step = step
            wrote = true
            if outcome == .failed {
                // Tried again: the earlier failure is history.
                outcome = .running
                error = nil
            }
        }
    }

    private struct Emulated: Sendable {
        var id: UUID
        var emulator: MonocleEmulator
        /// Ends the session (questions or captions) and disconnects.
        var stopSession: @Sendable () async -> Void
        var task: Task<Void, Never>
    }

    /// The server's own log, for what fails before a session has an owner's runtime.
    let runtime: SibylRuntime
    /// How many virtual Monocles may run at once on this server (each is a MicroPython interpreter).
    let maxEmulators: Int
    private let links = Mutex<[UUID: Link]>([:])
    /// The running virtual Monocles by owner; nil while one is starting.
    private let emulated = Mutex<[String: Emulated?]>([:])
    /// How to end each relayed session, by link, to end an owner's when the account goes.
    private let relayed = Mutex<[UUID: @Sendable () async -> Void]>([:])
    /// Each owner's uploaded update, waiting for the relay that installs it (one at a time).
    private let stagedUpdates = Mutex<[String: (id: UUID, update: GlassesUpdate)]>([:])

    init(runtime: SibylRuntime, maxEmulators: Int = 4) {
        self.runtime = runtime
        self.maxEmulators = maxEmulators
    }

    /// An owner's linked glasses, oldest first.
    func links(of owner: String) -> [Link] {
        links.withLock { $0.values.filter { $0.owner == owner } }.sorted { $0.startedAt < $1.startedAt }
    }

    /// Every linked pair of glasses, oldest first.
    var all: [Link] {
        links.withLock { Array($0.values) }.sorted { $0.startedAt < $1.startedAt }
    }

    /// Serves one browser relaying real glasses, Monocle or Frame as the page reported, until it
    /// leaves; the wearer's conversations (or, with `captions`, the captions' transcript) go to `runtime`.
    /// With `update`, the session installs it through the page (the bootloader on the same socket) first.
    func serveRelay(
        _ transport: RelayTransport, runtime: SibylRuntime, owner: String, options: GlassesSessionOptions,
        captions: CaptionOptions? = nil, update: GlassesUpdate? = nil
    ) async {
        let id = UUID()
        var link = Link(id: id, kind: "relay", owner: owner, state: GlassesState(kind: transport.kind, phase: .connecting))
        if captions != nil { link.mode = "captions" }
        var options = options
        if let update {
            update.apply(to: &options, bootloader: transport.bootloader)
            link.update = UpdateProgress(firmware: update.firmware?.version, fpga: update.fpga?.version)
        }
        link.events = runtime.events
        add(link)
        defer {
            remove(id)
            _ = relayed.withLock { $0.removeValue(forKey: id) }
        }
        do {
            let session = try self.session(for: id, transport: transport, kind: transport.kind, runtime: runtime, options: options, captions: captions)
            relayed.withLock { $0[id] = session.stop }
            await session.run()
        } catch {
            await runtime.log(.error, .glassesRelay, ConversationEngine.describe(error))
        }
    }

    /// Keeps an owner's uploaded update for the relay that will install it (replacing one kept
    /// before); its id is what the page names when it opens that relay.
    func stage(_ update: GlassesUpdate, owner: String) -> UUID {
        let id = UUID()
        stagedUpdates.withLock { $0[owner] = (id, update) }
        return id
    }

    /// The owner's staged update with `id`, taken for a relay to install (once).
    func takeUpdate(_ id: UUID, owner: String) -> GlassesUpdate? {
        stagedUpdates.withLock { staged in
            guard let kept = staged[owner], kept.id == id else { return nil }
            staged[owner] = nil
            return kept.update
        }
    }

    /// Starts an owner's virtual Monocle with Sibyl's app on it (answering questions, or with
    /// `captions` captioning what its microphone hears, at its real pace); fails when theirs
    /// already runs or the server runs as many as it may.
    func startEmulator(runtime: SibylRuntime, owner: String, options: GlassesSessionOptions, captions: CaptionOptions? = nil) async throws -> Link {
        let module = runtime.glasses.emulatorInterpreter
        guard FileManager.default.fileExists(atPath: module.path) else {
            throw APIError(.serviceUnavailable, code: "engine_not_installed", "The virtual Monocle's MicroPython interpreter is not installed.", remedy: .install(component: "emulator"))
        }
        // Claim the owner's place first, so two starts at once cannot both power one on.
        let claim = emulated.withLock { running -> APIError? in
            if running.keys.contains(owner) {
                return APIError(.conflict, code: "already_running", "Your virtual Monocle is already running; stop it first.")
            }
            if running.count >= maxEmulators {
                return APIError(.serviceUnavailable, code: "too_many_emulators", "This server already runs \(maxEmulators) virtual Monocles; try again when one stops.", headers: [.retryAfter: "30"])
            }
            running[owner] = .some(nil)
            return nil
        }
        if let claim { throw claim }
        do {
            var configuration = EmulatorConfiguration(interpreter: MicroPythonInterpreter(module: module))
            // Captions hear the world as it talks on: what is sent to the microphone plays at its pace.
            configuration.realTimeMicrophone = captions != nil
            configuration.continuousMicrophone = captions != nil
            let emulator = MonocleEmulator(configuration: configuration, filesystem: runtime.dataPaths.home.appendingPathComponent("monocle/server", isDirectory: true))
            try await emulator.powerOn()
            let transport = EmulatorTransport(emulator: emulator, maximumWriteLength: 253)
            let id = UUID()
            var link = Link(id: id, kind: "emulator", owner: owner)
            if captions != nil { link.mode = "captions" }
            link.events = runtime.events
            add(link)
            let session: (run: @Sendable () async -> Void, stop: @Sendable () async -> Void)
            do {
                session = try self.session(for: id, transport: transport, kind: .monocle, runtime: runtime, options: options, captions: captions)
            } catch {
                remove(id)
                await emulator.powerOff()
                throw error
            }
            // What its screen shows is told as it changes (the stream ends at power-off).
            Task { [events = runtime.events] in
                for await event in emulator.events {
                    if case .display = event { events.publish(.glasses(id: id)) }
                }
            }
            let task = Task { await session.run() }
            emulated.withLock { $0[owner] = Emulated(id: id, emulator: emulator, stopSession: session.stop, task: task) }
            await runtime.log(.info, .glassesEmulator, "started the virtual Monocle")
            return links.withLock { $0[id] } ?? Link(id: id, kind: "emulator", owner: owner)
        } catch {
            _ = emulated.withLock { $0.removeValue(forKey: owner) }
            throw error
        }
    }

    /// The session for link `id`: questions answered, or with `captions` live captions; `run`
    /// serves it and records what happens on the link, `stop` ends it.
    private func session(
        for id: UUID, transport: any GlassesTransport, kind: GlassesKind, runtime: SibylRuntime, options: GlassesSessionOptions, captions: CaptionOptions?
    ) throws -> (run: @Sendable () async -> Void, stop: @Sendable () async -> Void) {
        if let captions {
            let session = try runtime.glasses.captions(transport: transport, kind: kind, options: captions, session: options)
            return ({ [weak self] in await session.run { [weak self] event in self?.record(event, for: id) } }, { await session.stop() })
        }
        let session = try runtime.glasses.session(transport: transport, kind: kind, options: options)
        return ({ [weak self] in await session.run { [weak self] event in self?.record(event, for: id) } }, { await session.stop() })
    }

    /// Stops an owner's virtual Monocle; false when none runs (or it is still starting).
    @discardableResult
    func stopEmulator(of owner: String, runtime: SibylRuntime? = nil) async -> Bool {
        let running = emulated.withLock { running -> Emulated? in
            guard case .some(.some(let started)) = running[owner] else { return nil }
            running[owner] = nil
            return started
        }
        guard let running else { return false }
        await stop(running)
        await (runtime ?? self.runtime).log(.info, .glassesEmulator, "stopped the virtual Monocle")
        return true
    }

    /// An owner's virtual Monocle, when it runs.
    func emulator(of owner: String) -> MonocleEmulator? {
        emulated.withLock { $0[owner]??.emulator }
    }

    /// Ends an owner's sessions (the account was removed): their virtual Monocle stops and the
    /// glasses their browsers relay are let go.
    func stopAll(of owner: String) async {
        stagedUpdates.withLock { $0[owner] = nil }
        await stopEmulator(of: owner)
        let ids = Set(links(of: owner).map(\.id))
        let sessions = relayed.withLock { $0.filter { ids.contains($0.key) }.map(\.value) }
        for stop in sessions { await stop() }
    }

    /// Ends every session (the server is stopping).
    func stopAll() async {
        let owners = emulated.withLock { Array($0.keys) }
        for owner in owners { await stopAll(of: owner) }
        for stop in relayed.withLock({ Array($0.values) }) { await stop() }
    }

    private func stop(_ running: Emulated) async {
        await running.stopSession()
        running.task.cancel()
        _ = await running.task.value
        await running.emulator.powerOff()
        remove(running.id)
    }

    private func add(_ link: Link) {
        links.withLock { $0[link.id] = link }
        link.events?.publish(.glasses(id: link.id))
    }

    private func remove(_ id: UUID) {
        let gone = links.withLock { $0.removeValue(forKey: id) }
        gone?.events?.publish(.glasses(id: id))
    }

    /// Changes what is known of a link that is still there, and tells its owner's pages.
    private func update(_ id: UUID, _ change: (inout Link) -> Void) {
        let events = links.withLock { links -> LiveEvents? in
            guard var link = links[id] else { return nil }
            change(&link)
            links[id] = link
            return link.events
        }
        events?.publish(.glasses(id: id))
    }

    private func record(_ event: GlassesEvent, for id: UUID) {
        update(id) { link in
            switch event {
            case .state(let state): link.observe(state)
            case .notice(let text): link.notice = text
            case .updateFailed(let reason):
                link.notice = "the firmware update failed: \(reason)"
                link.update?.failed(reason)
            case .heard(let text): link.lastQuestion = text
            case .answered(let question, let answer, _):
                link.lastQuestion = question
                link.lastAnswer = answer
                link.lastError = nil
            case .failed(let shown, _): link.lastError = shown
            case .cancelled: link.lastError = "cancelled by the wearer"
            }
        }
    }

    private func record(_ event: GlassesCaptions.Event, for id: UUID) {
        update(id) { link in
            switch event {
            case .state(let state): link.observe(state)
            case .notice(let text): link.notice = text
            case .partial(let words): link.forming = words
            case .line(let line, let translation):
                link.forming = ""
                link.captionLines = Array((link.captionLines + [translation ?? line]).suffix(3))
                link.lastError = nil
            case .paused(let paused): link.paused = paused
            case .trouble(let text): link.lastError = text
            }
        }
    }
}
