import Foundation
import FrameProtocol
import Monocle

/// Brings Frame glasses from "connected" to "running a device app", and carries its messages.
///
/// On every connection it breaks whatever runs (break, reset, break), reads the firmware
/// version, uploads the app unless the glasses hold the same version, and starts it. Every wait
/// has a timeout and a bounded number of attempts; a lost link in any state ends in
/// `.disconnected`, and the controller reconnects when `Options.reconnect` is set.
public actor FrameController {
    public struct Options: Sendable {
        /// The firmware the app is written for; a different one is reported, not refused.
        public var expectedFirmware: String?
        /// A firmware package to install when Frame reports another version than the package's.
        public var firmwarePackage: DFUPackage?
        /// Reaches Frame's bootloader ("Frame Update"); needed for `firmwarePackage`.
        public var bootloader: (any DFUTransport)?
        /// How the firmware is sent.
        public var dfu = SecureDFUClient.Options()
        /// How long Frame may take to drop the link after `frame.update()`.
        public var bootloaderTimeout: Duration = .seconds(15)
        /// Firmware installs tried on one run before the controller stops trying.
        public var firmwareAttempts = 3
        /// How long to wait for the print that ends a REPL command.
        public var replyTimeout: Duration = .seconds(3)
        /// How long to wait for a message packet's acknowledgement.
        public var acknowledgementTimeout: Duration = .seconds(3)
        /// How long the app may take to print its ready line.
        public var startTimeout: Duration = .seconds(10)
        /// Attempts for each REPL step before the connection is given up.
        public var attempts = 3
        /// Reconnect after a lost link.
        public var reconnect = true
        /// Pause after connecting and after each break or reset (the firmware needs a moment).
        public var signalPause: Duration = .milliseconds(200)

        public init() {}
    }

    public nonisolated let events: AsyncStream<FrameEvent>
    private let continuation: AsyncStream<FrameEvent>.Continuation
    private let transport: any FrameTransport
    private let app: FrameDeviceApp
    private let options: Options

    public private(set) var state: FrameState = .disconnected(reason: nil)
    private var limits = FrameLimits(mtu: 23)
    private var preparation: Task<Void, Never>?
    private var stopped = false
    private var prints: [String] = []
    private var printWaiter: Waiter<String>?
    /// Which prints end the current print wait; others are strays (a late line from an app that was just stopped).
    private var printFilter: @Sendable (String) -> Bool = { _ in true }
    private var acknowledgementWaiter: Waiter<Bool>?
    private var waiterSerial = 0
    /// Message sends wait here for the one before to finish: packets of two messages must not mix.
    private var sending = false
    private var sendQueue: [CheckedContinuation<Void, Never>] = []
    /// Firmware installs: the package waiting for the bootloader, the install under way.
    private let installer = FirmwareInstaller(restarts: "Frame restarts")

    private struct Waiter<Value: Sendable> {
        var id: Int
        var continuation: CheckedContinuation<Value, any Error>
        var timer: Task<Void, Never>?
    }

    public init(transport: any FrameTransport, app: FrameDeviceApp, options: Options = Options()) {
        self.transport = transport
        self.app = app
        self.options = options
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    /// Connects and serves the link until `stop()` (or until the task running it is cancelled).
    public func run() async {
        continuation.yield(.state(state))
        await connect()
        for await event in transport.events {
            if stopped || Task.isCancelled { break }
            handle(event)
        }
        preparation?.cancel()
        continuation.finish()
    }

    /// Disconnects for good and ends `events`.
    public func stop() async {
        stopped = true
        preparation?.cancel()
        installer.cancel()
        failWaiters(FrameError.disconnected("stopped"))
        await transport.disconnect()
        continuation.finish()
    }

    /// The link's limits (meaningful once connected).
    public var currentLimits: FrameLimits { limits }

    /// Sends a message to the running app, one acknowledged packet at a time.
    public func send(_ message: FrameMessage) async throws {
        guard case .running = state else { throw FrameError.appNotRunning }
        let writes = try message.writes(limits: limits)
        await takeSendTurn()
        defer { endSendTurn() }
        for packet in writes {
            guard case .running = state else { throw FrameError.appNotRunning }
            let accepted = try await awaitAcknowledgement(what: "the acknowledgement of message 0x\(String(message.code, radix: 16))") {
                try await self.transport.write(packet)
            }
            guard accepted else { throw FrameError.lua(command: "message 0x\(String(message.code, radix: 16))", error: "the app could not take a packet") }
        }
    }

    // MARK: Link events

    private func handle(_ event: FrameTransportEvent) {
        switch event {
        case .connected(let mtu):
            limits = FrameLimits(mtu: mtu)
            preparation?.cancel()
            preparation = Task { await self.prepare() }
        case .received(let bytes):
            receive(FrameNotification(bytes))
        case .disconnected(let reason):
            preparation?.cancel()
            failWaiters(FrameError.disconnected(reason))
            if let package = installer.takeWaiting() {
                // Frame restarted into its bootloader, as asked.
                startFirmwareUpdate(package)
                return
            }
            if installer.isInstalling { return }
            setState(.disconnected(reason: reason))
            if options.reconnect && !stopped {
                Task { await self.connect() }
            }
        }
    }

    private func receive(_ notification: FrameNotification) {
        switch notification {
        case .printed(let text):
            if let waiter = printWaiter, printFilter(text) {
                printWaiter = nil
                waiter.timer?.cancel()
                waiter.continuation.resume(returning: text)
                return
            }
            prints.append(text)
            guard case .running = state else { return }
            if text.hasPrefix(SibylFrameApp.errorPrefix) {
                continuation.yield(.notice("the app on the glasses failed: \(text.dropFirst(SibylFrameApp.errorPrefix.count))"))
            } else {
                continuation.yield(.printed(text))
            }
        case .data(let payload):
            if notification.isAcknowledgement || notification.isNegativeAcknowledgement, let waiter = acknowledgementWaiter {
                acknowledgementWaiter = nil
                waiter.timer?.cancel()
                waiter.continuation.resume(returning: notification.isAcknowledgement)
                return
            }
            guard case .running = state else { return }
            continuation.yield(.data(payload))
        }
    }

    private func connect() async {
        var delay = Duration.milliseconds(250)
        while !stopped && !Task.isCancelled {
            if case .disconnected = state { setState(.connecting) }
            do {
                try await transport.connect()
                return
            } catch {
                if let package = options.firmwarePackage, await bootloaderIsWaiting() {
                    // Left in the bootloader (a failed update, or one started elsewhere): finish the update first.
                    continuation.yield(.notice("Frame is in its bootloader (\(FrameIdentifiers.bootloaderName))"))
                    startFirmwareUpdate(package)
                    return
                }
                continuation.yield(.notice("cannot connect: \(error.localizedDescription); trying again in \(delay)"))
                if !options.reconnect { setState(.disconnected(reason: error.localizedDescription)); return }
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(5))
            }
        }
    }

    private func setState(_ new: FrameState) {
        state = new
        continuation.yield(.state(new))
    }

    // MARK: Bringing the app up

    private func prepare() async {
        do {
            try await Task.sleep(for: options.signalPause)
            setState(.interrupting)
            for signal in [FrameWrite.breakSignal, .resetSignal, .breakSignal] {
                try await transport.write(try signal.bytes(limits: limits))
                try await Task.sleep(for: options.signalPause)
            }
            prints.removeAll()
            setState(.checkingFirmware)
            let firmware = try await query("print(frame.FIRMWARE_VERSION)", what: "the firmware version") { $0.hasPrefix("v") }
            if let package = options.firmwarePackage, options.bootloader != nil, firmware != package.version {
                if let target = package.version, installer.attemptedVersion != target {
                    try await enterBootloader(toInstall: package)
                    return // Frame restarts into its bootloader; the update runs when the link drops
                }
                continuation.yield(.notice(package.version == nil
                    ? "the firmware package does not say which version it holds; not installing it"
                    : "Frame reports firmware \(firmware); \(package.version ?? "?") was tried already, so it is not installed again"))
            }
            if let expected = options.expectedFirmware, firmware != expected {
                continuation.yield(.notice("the glasses run firmware \(firmware); Sibyl's app is written for \(expected)"))
            }
            setState(.checkingApp(firmware: firmware))
            let installed = try await query(FrameDeviceApp.versionQuery, what: "the app version") { $0 == "-" || $0.hasPrefix("sha256:") }
            let uploaded = installed != app.version
            var uploadTime: Duration?
            var writes = 0
            if uploaded {
                let started = ContinuousClock.now
                writes = try await upload()
                uploadTime = ContinuousClock.now - started
            }
            setState(.starting)
            try await start()
            try Task.checkCancellation()
            setState(.running(FrameDeviceInfo(firmware: firmware, app: app.version, uploaded: uploaded, mtu: limits.mtu, uploadTime: uploadTime, uploadWrites: writes)))
        } catch is CancellationError {
            return
        } catch FrameError.disconnected {
            return // `.disconnected` from the transport sets the state
        } catch {
            guard !Task.isCancelled else { return }
            continuation.yield(.notice("giving up on this connection: \(error.localizedDescription)"))
            await transport.disconnect()
        }
    }

    /// Uploads every file of the app; returns how many writes it took.
    private func upload() async throws -> Int {
        let suffix = ";print(1)"
        var writes = 0
        for (index, file) in app.files.enumerated() {
            setState(.uploadingApp(file: file.name, index: index, count: app.files.count))
            let chunks = try LuaFileUpload(path: file.name, contents: file.contents).chunks(limits: limits, suffixLength: suffix.utf8.count)
            // A chunk is not sent twice (a repeated f:write would repeat its text): after a lost
            // reply the file is written again from its start, which `open(…,'w')` empties.
            var attempt = 1
            while true {
                do {
                    for chunk in chunks {
                        let reply = try await run(chunk + suffix, what: "writing \(file.name)", attempts: 1) { $0 == "1" }
                        writes += 1
                        guard reply == "1" else {
                            throw FrameError.lua(command: "writing \(file.name)", error: reply)
                        }
                    }
                    break
                } catch FrameError.timeout where attempt < options.attempts {
                    attempt += 1
                    continuation.yield(.notice("no reply while writing \(file.name); writing it again from the start"))
                }
            }
        }
        return writes
    }

    private func start() async throws {
        let command = "require('\(app.entry)')"
        guard let ready = app.readyLine else {
            try await transport.write(try FrameWrite.lua(command).bytes(limits: limits))
            return
        }
        let accepts: @Sendable (String) -> Bool = { $0 == ready || $0.hasPrefix(SibylFrameApp.errorPrefix) || LuaError(parsing: $0) != nil }
        let line = try await awaitPrint(what: "the app to start", timeout: options.startTimeout, accepting: accepts) {
            try await self.transport.write(try FrameWrite.lua(command).bytes(limits: self.limits))
        }
        guard line == ready else { throw FrameError.lua(command: command, error: line) }
    }

    /// Runs a command that prints one value; retries after a timeout.
    private func query(_ code: String, what: String, accepting accepts: @escaping @Sendable (String) -> Bool) async throws -> String {
        let reply = try await run(code, what: what, accepting: accepts)
        if let error = LuaError(parsing: reply), error.source == LuaError.chunkName(ofSource: code) {
            throw FrameError.lua(command: code, error: error.message)
        }
        return reply
    }

    /// Sends a chunk and returns what it printed (a reply `accepts` takes, or the chunk's error),
    /// retrying after a timeout.
    private func run(_ code: String, what: String, attempts: Int? = nil, accepting accepts: @escaping @Sendable (String) -> Bool) async throws -> String {
        let bytes = try FrameWrite.lua(code).bytes(limits: limits)
        let chunkName = LuaError.chunkName(ofSource: code)
        let filter: @Sendable (String) -> Bool = { accepts($0) || LuaError(parsing: $0)?.source == chunkName }
        var attempt = 1
        while true {
            do {
                return try await awaitPrint(what: what, timeout: options.replyTimeout, accepting: filter) { try await self.transport.write(bytes) }
            } catch FrameError.timeout where attempt < (attempts ?? options.attempts) {
                attempt += 1
                continuation.yield(.notice("no reply for \(what); trying again"))
            }
        }
    }

    // MARK: Firmware (Nordic Secure DFU)

    /// `frame.update()`: Frame shows "Frame Update" and restarts into its bootloader; the link drops.
    private func enterBootloader(toInstall package: DFUPackage) async throws {
        if let report = installer.awaitBootloader(for: package) { await firmwareReported(report) }
        continuation.yield(.notice("installing firmware \(package.version ?? "?"): restarting Frame into its bootloader"))
        do {
            // Success is the link dropping (which ends this wait as `.disconnected`); an error prints.
            let code = "frame.update()"
            let reply = try await awaitPrint(what: "Frame to restart into its bootloader", timeout: options.bootloaderTimeout, accepting: { _ in true }) {
                try await self.transport.write(try FrameWrite.lua(code).bytes(limits: self.limits))
            }
            installer.stopWaiting()
            throw FrameError.lua(command: code, error: reply)
        } catch FrameError.disconnected {
            throw FrameError.disconnected("restarting into the bootloader")
        } catch {
            installer.stopWaiting()
            throw error
        }
    }

    private func startFirmwareUpdate(_ package: DFUPackage) {
        guard let bootloader = options.bootloader else { return }
        installer.start(package, bootloader: bootloader, options: options.dfu) { report in await self.firmwareReported(report) }
    }

    private func firmwareReported(_ report: FirmwareInstaller.Report) async {
        switch report {
        case .progress(let fraction):
            setState(.updatingFirmware(progress: fraction))
        case .notice(let notice):
            continuation.yield(.notice(notice))
        case .failed(let reason):
            continuation.yield(.updateFailed(reason))
        case .ended(let reason):
            guard !stopped else { return }
            setState(.disconnected(reason: reason))
            await connect()
        }
    }

    /// Whether Frame waits in its bootloader, when a firmware package is given (and tries are left).
    private func bootloaderIsWaiting() async -> Bool {
        await installer.bootloaderWaits(for: options.firmwarePackage, bootloader: options.bootloader, attempts: options.firmwareAttempts)
    }

    // MARK: Waiting

    private func awaitPrint(
        what: String, timeout: Duration, accepting accepts: @escaping @Sendable (String) -> Bool,
        after action: @escaping @Sendable () async throws -> Void
    ) async throws -> String {
        prints.removeAll()
        printFilter = accepts
        waiterSerial += 1
        let id = waiterSerial
        return try await withCheckedThrowingContinuation { continuation in
            let timer = Task {
                try? await Task.sleep(for: timeout)
                self.expirePrint(id, error: FrameError.timeout(waitingFor: what, after: timeout))
            }
            printWaiter = Waiter(id: id, continuation: continuation, timer: timer)
            Task {
                do { try await action() } catch { self.expirePrint(id, error: error) }
            }
        }
    }

    private func expirePrint(_ id: Int, error: any Error) {
        guard let waiter = printWaiter, waiter.id == id else { return }
        printWaiter = nil
        waiter.timer?.cancel()
        waiter.continuation.resume(throwing: error)
    }

    private func awaitAcknowledgement(what: String, after action: @escaping @Sendable () async throws -> Void) async throws -> Bool {
        waiterSerial += 1
        let id = waiterSerial
        let timeout = options.acknowledgementTimeout
        return try await withCheckedThrowingContinuation { continuation in
            let timer = Task {
                try? await Task.sleep(for: timeout)
                self.expireAcknowledgement(id, error: FrameError.timeout(waitingFor: what, after: timeout))
            }
            acknowledgementWaiter = Waiter(id: id, continuation: continuation, timer: timer)
            Task {
                do { try await action() } catch { self.expireAcknowledgement(id, error: error) }
            }
        }
    }

    private func expireAcknowledgement(_ id: Int, error: any Error) {
        guard let waiter = acknowledgementWaiter, waiter.id == id else { return }
        acknowledgementWaiter = nil
        waiter.timer?.cancel()
        waiter.continuation.resume(throwing: error)
    }

    private func failWaiters(_ error: any Error) {
        if let waiter = printWaiter {
            printWaiter = nil
            waiter.timer?.cancel()
            waiter.continuation.resume(throwing: error)
        }
        if let waiter = acknowledgementWaiter {
            acknowledgementWaiter = nil
            waiter.timer?.cancel()
            waiter.continuation.resume(throwing: error)
        }
    }

    private func takeSendTurn() async {
        if !sending {
            sending = true
            return
        }
        await withCheckedContinuation { sendQueue.append($0) }
    }

    private func endSendTurn() {
        if sendQueue.isEmpty {
            sending = false
        } else {
            sendQueue.removeFirst().resume()
        }
    }
}
