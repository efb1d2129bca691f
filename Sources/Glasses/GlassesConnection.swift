public import Foundation
public import SecureDFU
public import SibylCore

/// Glasses of either kind, kept connected and running their device app, with what the wearer asks
/// coming out as events.
///
/// The connection owns the link: it connects (again after a lost link, waiting longer each time it
/// fails), keeps one ``GlassesState``, installs a firmware package through the glasses' bootloader
/// (Nordic Secure DFU) when one is given and the glasses report another version, and hands the rest
/// to its ``GlassesDriver``: readying the glasses, bringing the app up, and turning the app's
/// messages into ``GlassesRequest``s. Every wait has a timeout; a lost link in any state ends in
/// `disconnected`, and the connection reconnects when ``Options/reconnect`` is set.
public actor GlassesConnection {
    /// Tunables; the defaults suit real glasses.
    public struct Options: Sendable {
        /// A firmware package to install when the glasses report another version than the package's.
        public var firmwarePackage: DFUPackage?
        /// Reaches the glasses' bootloader (Monocle's `DfuTarg`, Frame's "Frame Update"); needed for `firmwarePackage`.
        public var bootloader: (any DFUTransport)?
        /// How the firmware is sent.
        public var dfu = SecureDFUClient.Options()
        /// How long the glasses may take to drop the link after being told to enter their bootloader.
        public var bootloaderTimeout: Duration = .seconds(15)
        /// Firmware installs tried on one run before the connection stops trying.
        public var firmwareAttempts = 3
        /// Reconnect after a lost link (and after the glasses restart).
        public var reconnect = true
        /// The pause before trying again after a failed connect; it doubles with each failure…
        public var reconnectDelay: Duration = .milliseconds(250)
        /// …up to this.
        public var longestReconnectDelay: Duration = .seconds(5)

        public init() {}
    }

    /// What happens, in order.
    public enum Event: Sendable, Equatable {
        /// The connection's state changed.
        case state(GlassesState)
        /// Something worth a line in the log: a retry, a version mismatch, a skipped update.
        case notice(String)
        /// A firmware update failed, in words; the glasses may wait in their bootloader until updated or restarted.
        case updateFailed(String)
        /// The glasses started sending a recording or a photo.
        case transferStarted
        /// The glasses started recording a question (`forPhoto`: about the photo just sent); its
        /// samples follow as ``audio(_:)`` while the wearer speaks, then the ``request(_:)``.
        case recording(forPhoto: Bool)
        /// Samples of the recording under way as they arrive: signed 8-bit at 8 kHz.
        case audio(Data)
        /// The wearer asked for something.
        case request(GlassesRequest)
        /// The wearer paused (true) or resumed (false) live captions.
        case captionsPaused(Bool)
    }

    /// Everything that happens, in order. One consumer.
    public nonisolated let events: AsyncStream<Event>
    /// Which glasses.
    public nonisolated let kind: GlassesKind
    /// What speaks the glasses' protocol.
    public nonisolated let driver: any GlassesDriver
    let continuation: AsyncStream<Event>.Continuation
    let transport: any GlassesTransport
    let options: Options
    var machine: StateMachine
    private var preparation: Task<Void, Never>?
    var stopped = false
    /// Firmware installs: the package waiting for the bootloader, the install under way.
    let installer = FirmwareInstaller(restarts: "the glasses restart")

    /// A connection to the glasses `transport` reaches, speaking `driver`'s protocol.
    public init(transport: any GlassesTransport, driver: any GlassesDriver, options: Options = Options()) {
        self.transport = transport
        self.driver = driver
        self.options = options
        kind = driver.kind
        machine = StateMachine(kind: driver.kind)
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    /// Where the connection is now.
    public var state: GlassesState { machine.state }

    /// Connects and serves the link until `stop()` (or until the task running it is cancelled).
    public func run() async {
        continuation.yield(.state(state))
        await connect()
        for await event in transport.events {
            if stopped || Task.isCancelled { break }
            await handle(event)
        }
        preparation?.cancel()
        await driver.linkLost("the link ended")
        continuation.finish()
    }

    /// Disconnects for good and ends `events`.
    public func stop() async {
        stopped = true
        preparation?.cancel()
        installer.cancel()
        await driver.linkLost("stopped")
        await transport.disconnect()
        continuation.finish()
    }

    /// Shows an answer on the running app, or an error in red.
    public func show(_ text: String, isError: Bool = false) async throws {
        guard let link = machine.runningLink(of: self) else { throw GlassesError.appNotRunning }
        try await driver.show(text, isError: isError, link: link)
    }

    /// Tells the running app that the question is being answered.
    public func showThinking() async {
        guard let link = machine.runningLink(of: self) else { return }
        await driver.showThinking(link)
    }

    /// Shows the answer written so far (the whole of it each time); ``show(_:isError:)`` shows the last.
    public func showAnswer(soFar text: String) async throws {
        guard let link = machine.runningLink(of: self) else { throw GlassesError.appNotRunning }
        try await driver.showAnswer(soFar: text, link: link)
    }

    /// Shows the words heard so far while the wearer speaks.
    public func showHeard(_ text: String) async {
        guard let link = machine.runningLink(of: self) else { return }
        await driver.showHeard(text, link: link)
    }

    /// Ends the recording under way: Sibyl heard the end of the question. The rest of the samples and
    /// the request follow as when the wearer ends it.
    public func stopListening() async {
        guard let link = machine.runningLink(of: self) else { return }
        await driver.stopListening(link)
    }

    /// Starts live captions on the running app: the microphone streams (``Event/audio(_:)``) until
    /// ``stopCaptions()``, and a tap pauses and resumes (``Event/captionsPaused(_:)``).
    public func startCaptions() async throws {
        guard let link = machine.runningLink(of: self) else { throw GlassesError.appNotRunning }
        try await driver.startCaptions(link)
    }

    /// Ends live captions.
    public func stopCaptions() async {
        guard let link = machine.runningLink(of: self) else { return }
        await driver.stopCaptions(link)
    }

    /// Shows caption lines (oldest first), or that captions are paused.
    public func showCaptions(_ lines: [String], paused: Bool = false) async {
        guard let link = machine.runningLink(of: self) else { return }
        await driver.showCaptions(lines, paused: paused, link: link)
    }

    // MARK: The link

    private func handle(_ event: GlassesTransportEvent) async {
        switch event {
        case .connected(let length):
            preparation?.cancel()
            let generation = machine.linkUp(maximumWriteLength: length)
            let link = GlassesLink(connection: self, generation: generation, maximumWriteLength: length)
            preparation = Task { await self.prepare(link) }
        case .received(let channel, let bytes):
            guard let link = machine.currentLink(of: self) else { return }
            await driver.received(bytes, on: channel, link: link)
        case .disconnected(let reason):
            preparation?.cancel()
            await driver.linkLost(reason)
            let waiting = installer.takeWaiting()
            switch machine.linkDown(reason: reason, firmwareWaits: waiting != nil, installing: installer.isInstalling) {
            case .installFirmware:
                // The glasses restarted into their bootloader, as asked.
                if let waiting { startFirmwareUpdate(waiting) }
            case .keepUpdating:
                break
            case .disconnected:
                publish()
                if options.reconnect && !stopped {
                    Task { await self.connect() }
                }
            }
        }
    }

    /// Asks the transport for a link until it gives one (or, without `reconnect`, once).
    func connect() async {
        var delay = options.reconnectDelay
        while !stopped && !Task.isCancelled {
            if machine.connecting() { publish() }
            do {
                try await transport.connect()
                return
            } catch {
                if let package = options.firmwarePackage, await bootloaderIsWaiting() {
                    // Left in the bootloader (a failed update, or one started elsewhere): finish the update first.
                    notice("the glasses are in their bootloader (\(driver.bootloaderName))")
                    startFirmwareUpdate(package)
                    return
                }
                notice("cannot connect: \(error.localizedDescription); trying again in \(delay)")
                if !options.reconnect {
                    machine.connectFailed(reason: error.localizedDescription)
                    publish()
                    return
                }
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, options.longestReconnectDelay)
            }
        }
    }

    /// Readies the glasses, installs firmware when asked to, and brings the app up.
    private func prepare(_ link: GlassesLink) async {
        do {
            let firmware = try await driver.prepare(link)
            if let package = options.firmwarePackage, options.bootloader != nil, firmware != package.version {
                if let target = package.version, installer.attemptedVersion != target {
                    try await enterBootloader(toInstall: package, link: link)
                    return // the glasses restart into the bootloader; the update runs when the link drops
                }
                notice(package.version == nil
                    ? "the firmware package does not say which version it holds; not installing it"
                    : "the glasses report firmware \(firmware ?? "of unknown version"); \(package.version ?? "?") was tried already, so it is not installed again")
            }
            if let expected = driver.expectedFirmware, firmware != expected {
                notice("the glasses run firmware \(firmware ?? "of unknown version"); Sibyl's app is written for \(expected)")
            }
            guard let info = try await driver.startApp(link, firmware: firmware) else { return }
            // A link lost meanwhile has already set `disconnected`: don't overwrite it.
            try Task.checkCancellation()
            if machine.appRunning(info, on: link.generation) { publish() }
        } catch is CancellationError {
            return
        } catch GlassesError.disconnected {
            return // `disconnected` from the transport sets the state
        } catch {
            guard !Task.isCancelled else { return }
            notice("giving up on this connection: \(error.localizedDescription)")
            await transport.disconnect()
        }
    }

    // MARK: What the driver reports

    func write(_ bytes: Data, to channel: GlassesChannel, on generation: Int) async throws {
        guard machine.isCurrent(generation) else { throw GlassesError.disconnected("the link was lost") }
        try await transport.write(bytes, to: channel)
    }

    func driverEntered(_ phase: GlassesPhase, on generation: Int) {
        if machine.driverEntered(phase, on: generation) { publish() }
    }

    func driverReported(_ event: Event, on generation: Int) {
        switch event {
        case .request, .transferStarted, .recording, .audio, .captionsPaused:
            // What the wearer asked on a link that is gone is not answered.
            guard machine.isCurrent(generation) else { return }
        case .state, .notice, .updateFailed:
            break
        }
        continuation.yield(event)
    }

    func notice(_ text: String) {
        continuation.yield(.notice(text))
    }

    func publish() {
        continuation.yield(.state(machine.state))
    }
}
