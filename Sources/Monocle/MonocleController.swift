import Foundation

/// Brings Monocle glasses from "connected" to "running Sibyl's app", and carries app messages after that.
///
/// On every connection it enters the raw REPL, reads the firmware and FPGA versions, installs a
/// firmware package (Nordic Secure DFU through the bootloader) and an FPGA image when they are given
/// and the versions differ, uploads the device app unless the glasses already run the same version,
/// and soft-resets into it. Every wait has a timeout and a bounded number of
/// attempts (the phone apps waited forever); a lost link in any state ends up in `.disconnected`,
/// and the controller reconnects when `Options.reconnect` is set.
public actor MonocleController {
    /// Tunables; the defaults suit real glasses.
    public struct Options: Sendable {
        /// The firmware Sibyl's device app is written for; a different one is reported, not refused.
        public var expectedFirmware: String? = "v23.248.0754"
        /// An FPGA image to install when the glasses report another version.
        public var fpgaImage: FPGAImage?
        /// A firmware package to install when the glasses report another version than the package's.
        public var firmwarePackage: DFUPackage?
        /// Reaches the glasses' bootloader (`DfuTarg`); needed for `firmwarePackage`.
        public var bootloader: (any DFUTransport)?
        /// How the firmware is sent.
        public var dfu = SecureDFUClient.Options()
        /// How long the glasses may take to drop the link after being told to enter their bootloader.
        public var bootloaderTimeout: Duration = .seconds(15)
        /// Firmware installs tried on one run before the controller stops trying.
        public var firmwareAttempts = 3
        /// How long to wait for a REPL reply.
        public var replyTimeout: Duration = .seconds(3)
        /// How long to wait for a file write or the FPGA erase.
        public var writeTimeout: Duration = .seconds(15)
        /// Attempts for each REPL step before the connection is given up.
        public var attempts = 3
        /// Reconnect after a lost link (and after the glasses restart).
        public var reconnect = true
        /// Pause before the first REPL bytes after connecting (the firmware needs a moment).
        public var connectDelay: Duration = .milliseconds(100)
        /// Quiet time that ends the raw-REPL greeting (a second banner may follow the first).
        public var settle: Duration = .milliseconds(150)

        public init() {}
    }

    /// Everything that happens, in order. One consumer.
    public nonisolated let events: AsyncStream<MonocleEvent>
    private let continuation: AsyncStream<MonocleEvent>.Continuation
    private let transport: any MonocleTransport
    private let app: DeviceApp
    private let options: Options

    /// Where the controller is now.
    public private(set) var state: MonocleState = .disconnected(reason: nil)
    private var serial: [UInt8] = []
    private var waiter: Waiter?
    private var waiterSerial = 0
    private var maximumWriteLength = 0
    private var preparation: Task<Void, Never>?
    private var stopped = false
    /// Firmware installs: the package waiting for the bootloader, the install under way.
    private let installer = FirmwareInstaller(restarts: "the glasses restart")

    private struct Waiter {
        var id: Int
        var what: String
        var isSatisfied: @Sendable ([UInt8]) -> Bool
        var continuation: CheckedContinuation<Void, any Error>
        var timer: Task<Void, Never>?

        func resume(throwing error: (any Error)? = nil) {
            timer?.cancel()
            if let error { continuation.resume(throwing: error) } else { continuation.resume() }
        }
    }

    public init(transport: any MonocleTransport, app: DeviceApp, options: Options = Options()) {
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
        fail(MonocleError.disconnected("stopped"))
        await transport.disconnect()
        continuation.finish()
    }

    /// Sends one message to the running app.
    public func send(_ message: AppMessage) async throws {
        guard case .running = state else { throw MonocleError.notConnected }
        let packet = message.packet
        guard packet.count <= maximumWriteLength else {
            throw MonocleError.transport("a \(packet.count)-byte message does not fit the \(maximumWriteLength)-byte link")
        }
        try await transport.write(packet, to: .data)
    }

    /// Sends text as `res:` (or `err:`) messages that each fit the link.
    public func show(_ text: String, as command: AppMessage.Command = .response) async throws {
        for message in AppMessage.chunks(of: text, as: command, maximumLength: maximumWriteLength) {
            try await send(message)
        }
    }

    // MARK: Link events

    private func handle(_ event: TransportEvent) {
        switch event {
        case .connected(let length):
            maximumWriteLength = length
            preparation?.cancel()
            preparation = Task { await self.prepare() }
        case .received(.serial, let bytes):
            serial.append(contentsOf: bytes)
            if let waiter, waiter.isSatisfied(serial) {
                self.waiter = nil
                waiter.resume()
            }
        case .received(.data, let packet):
            guard case .running = state else { return }
            if let message = AppMessage(packet: packet) {
                continuation.yield(.message(message))
            } else {
                continuation.yield(.notice("ignored an unknown data message: \(packet.prefix(8).map { String(format: "%02x", $0) }.joined())"))
            }
        case .disconnected(let reason):
            preparation?.cancel()
            fail(MonocleError.disconnected(reason))
            if let package = installer.takeWaiting() {
                // The glasses restarted into their bootloader, as asked.
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
                    continuation.yield(.notice("the glasses are in their bootloader (DfuTarg)"))
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

    private func setState(_ new: MonocleState) {
        state = new
        continuation.yield(.state(new))
    }

    // MARK: Bringing the app up

    private func prepare() async {
        do {
            try await Task.sleep(for: options.connectDelay)
            try await enterRawREPL()
            setState(.checkingFirmware)
            let firmware = try await query("import device;print(device.VERSION);del(device)", what: "the firmware version")
            setState(.checkingFPGA(firmware: firmware))
            let fpga = try await query("import fpga;print(fpga.read(2,12));del(fpga)", what: "the FPGA version")
            if let package = options.firmwarePackage, options.bootloader != nil, firmware != package.version {
                if let target = package.version, installer.attemptedVersion != target {
                    try await enterBootloader(toInstall: package)
                    return // the glasses restart into the bootloader; the update runs when the link drops
                }
                continuation.yield(.notice(package.version == nil
                    ? "the firmware package does not say which version it holds; not installing it"
                    : "the glasses report firmware \(firmware ?? "of unknown version"); \(package.version ?? "?") was tried already, so it is not installed again"))
            }
            if let expected = options.expectedFirmware, firmware != expected {
                continuation.yield(.notice("the glasses run firmware \(firmware ?? "of unknown version"); Sibyl's app is written for \(expected)"))
            }
            if let image = options.fpgaImage, fpga != image.version {
                if maximumWriteLength > 100 {
                    try await updateFPGA(image)
                    return // the glasses restart; the next connection continues
                }
                continuation.yield(.notice("the FPGA needs \(image.version) but the link is too small to update it"))
            }
            setState(.checkingApp(firmware: firmware, fpga: fpga))
            let installed = try await execute(DeviceApp.versionQuery, what: "the app version", timeout: options.replyTimeout)
            let uploaded = installed.output.trimmingCharacters(in: .whitespacesAndNewlines) != app.version
            var uploadTime: Duration?
            if uploaded {
                let started = ContinuousClock.now
                try await upload()
                uploadTime = ContinuousClock.now - started
            }
            setState(.starting)
            serial.removeAll()
            try await transport.write(Data(RawREPL.softReset), to: .serial)
            // A link lost during that write has already set `.disconnected`: don't overwrite it.
            try Task.checkCancellation()
            setState(.running(DeviceInfo(firmware: firmware, fpga: fpga, app: app.version, uploaded: uploaded, maximumWriteLength: maximumWriteLength, uploadTime: uploadTime)))
        } catch is CancellationError {
            return
        } catch MonocleError.disconnected {
            return // `.disconnected` from the transport sets the state
        } catch {
            guard !Task.isCancelled else { return }
            continuation.yield(.notice("giving up on this connection: \(error.localizedDescription)"))
            await transport.disconnect()
        }
    }

    private func enterRawREPL() async throws {
        for attempt in 1...max(options.attempts, 1) {
            setState(.enteringRawREPL(attempt: attempt))
            serial.removeAll()
            try await transport.write(Data(RawREPL.enter), to: .serial)
            do {
                try await wait(for: "the raw REPL", timeout: options.replyTimeout) { RawREPL.containsBanner($0) }
                try await settle()
                return
            } catch MonocleError.timeout where attempt < options.attempts {
                continuation.yield(.notice("no raw-REPL banner; sending ^C ^C ^A again"))
            }
        }
    }

    /// Waits until the glasses have been quiet for a moment, so a second banner doesn't leak into the next reply.
    private func settle() async throws {
        var seen = -1
        var rounds = 0
        while seen != serial.count && rounds < 20 {
            seen = serial.count
            rounds += 1
            try await Task.sleep(for: options.settle)
        }
        serial.removeAll()
    }

    private func query(_ code: String, what: String) async throws -> String? {
        let reply = try await execute(code, what: what, timeout: options.replyTimeout)
        return reply.succeeded ? RawREPL.version(in: reply.output) : nil
    }

    /// Runs a command, retrying after a timeout; an exception on the glasses comes back in the reply.
    private func execute(_ code: String, what: String, timeout: Duration) async throws -> RawREPL.Reply {
        var attempt = 1
        while true {
            serial.removeAll()
            try await transport.write(RawREPL.command(code), to: .serial)
            do {
                try await wait(for: what, timeout: timeout) { RawREPL.reply(in: $0) != nil }
                guard let reply = RawREPL.reply(in: serial) else { throw MonocleError.unexpectedReply(waitingFor: what, got: String(decoding: serial, as: UTF8.self)) }
                return reply
            } catch MonocleError.timeout where attempt < options.attempts {
                attempt += 1
                continuation.yield(.notice("no reply for \(what); entering the raw REPL and trying again"))
                try await enterRawREPL()
            }
        }
    }

    /// Runs a command that must succeed, retrying a failed one.
    private func executeChecked(_ code: String, what: String, timeout: Duration) async throws {
        var attempt = 1
        while true {
            let reply = try await execute(code, what: what, timeout: timeout)
            if reply.succeeded { return }
            guard attempt < options.attempts else { throw MonocleError.replError(command: code, traceback: reply.error) }
            attempt += 1
            continuation.yield(.notice("\(what) failed (\(MonocleError.lastLine(of: reply.error))); trying again"))
        }
    }

    private func upload() async throws {
        let commands = app.uploadCommands()
        for (index, entry) in commands.enumerated() {
            setState(.uploadingApp(file: entry.file, index: index, count: commands.count))
            try await executeChecked(entry.command, what: "writing \(entry.file)", timeout: options.writeTimeout)
        }
    }

    private func updateFPGA(_ image: FPGAImage) async throws {
        setState(.updatingFPGA(progress: 0))
        try await executeChecked(FPGAImage.eraseCommand, what: "erasing the FPGA flash", timeout: options.writeTimeout)
        let chunks = image.chunks(maximumWriteLength: maximumWriteLength)
        var reported = 0
        for (index, chunk) in chunks.enumerated() {
            try await executeChecked(FPGAImage.writeCommand(chunk), what: "FPGA chunk \(index + 1) of \(chunks.count)", timeout: options.replyTimeout)
            let percent = (index + 1) * 100 / chunks.count
            if percent > reported {
                reported = percent
                setState(.updatingFPGA(progress: Double(index + 1) / Double(chunks.count)))
            }
        }
        serial.removeAll()
        // The glasses print "Resetting" and restart; the lost link reconnects into the new image.
        try await transport.write(RawREPL.command(FPGAImage.finishCommand), to: .serial)
    }

    // MARK: Firmware (Nordic Secure DFU)

    /// Asks the app firmware to restart into the bootloader (`update.micropython()`); the link drops.
    private func enterBootloader(toInstall package: DFUPackage) async throws {
        if let report = installer.awaitBootloader(for: package) { await firmwareReported(report) }
        continuation.yield(.notice("installing firmware \(package.version ?? "?"): restarting the glasses into their bootloader"))
        serial.removeAll()
        do {
            try await transport.write(RawREPL.command("import update;update.micropython()"), to: .serial)
            // Success is the link dropping (which ends this wait); an exception comes back as a reply.
            try await wait(for: "the glasses to restart into their bootloader", timeout: options.bootloaderTimeout) { RawREPL.reply(in: $0)?.succeeded == false }
            let traceback = RawREPL.reply(in: serial)?.error ?? ""
            installer.stopWaiting()
            throw MonocleError.replError(command: "update.micropython()", traceback: traceback)
        } catch MonocleError.disconnected {
            throw MonocleError.disconnected("restarting into the bootloader")
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

    /// Whether the glasses wait in their bootloader, when a firmware package is given (and tries are left).
    private func bootloaderIsWaiting() async -> Bool {
        await installer.bootloaderWaits(for: options.firmwarePackage, bootloader: options.bootloader, attempts: options.firmwareAttempts)
    }

    // MARK: Waiting for bytes

    private func wait(for what: String, timeout: Duration, until isSatisfied: @escaping @Sendable ([UInt8]) -> Bool) async throws {
        if isSatisfied(serial) { return }
        waiterSerial += 1
        let id = waiterSerial
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                waiter = Waiter(id: id, what: what, isSatisfied: isSatisfied, continuation: continuation)
                waiter?.timer = Task {
                    guard (try? await Task.sleep(for: timeout)) != nil else { return }
                    self.expire(id, error: MonocleError.timeout(waitingFor: what, after: timeout))
                }
            }
        } onCancel: {
            Task { await self.expire(id, error: CancellationError()) }
        }
    }

    private func expire(_ id: Int, error: any Error) {
        guard let waiter, waiter.id == id else { return }
        self.waiter = nil
        waiter.resume(throwing: error)
    }

    private func fail(_ error: any Error) {
        guard let waiter else { return }
        self.waiter = nil
        waiter.resume(throwing: error)
    }
}
