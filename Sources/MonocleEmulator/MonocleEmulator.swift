import Foundation
import Glasses
import SecureDFU
import NIOCore
import SibylCore

/// What the virtual glasses do, for a terminal view or a log.
public enum EmulatorEvent: Sendable {
    /// Something was drawn.
    case display(DisplayFrame)
    /// The REPL printed (serial TX), whether or not a phone listens.
    case serial(String)
    /// The app sent a data-channel message.
    case dataSent(Data)
    /// An LED changed.
    case led(String, on: Bool)
    /// The interpreter started again (power-on, soft reset, reset after an update).
    case restarted(String)
    /// A line the interpreter wrote to stderr.
    case log(String)
}

/// A virtual Monocle: a device app runs under the real MicroPython interpreter with the firmware's
/// modules emulated, behind a byte-exact REPL and MTU-sized notifications.
///
/// The device's filesystem is a directory; a connected "phone" (an `EmulatorTransport`) writes to the
/// serial and data channels and receives notifications. The wearer's side is driven by `tap`, `hold`,
/// `speak` and `photo`; everything drawn is kept in `displayLog`. `update.micropython()` restarts it
/// into an emulated Secure DFU bootloader (`DfuTarg`, reached through `EmulatorDFUTransport`) that
/// installs a signed package and restarts into the new firmware version. Faults: `disconnect`,
/// `dropNotifications`, `corruptNextWrite`, `disconnectWhenSerialContains`, `disconnectBootloader`,
/// `corruptDFUPackets`.
public actor MonocleEmulator {
    public nonisolated let events: AsyncStream<EmulatorEvent>
    private let eventSink: AsyncStream<EmulatorEvent>.Continuation
    private let configuration: EmulatorConfiguration
    /// The device's filesystem (where `main.py` lives).
    public nonisolated let filesystem: URL
    private let firmwareDirectory: URL
    private let started = ContinuousClock.now

    private var link: EmulatorLink?
    private var inputs: AsyncStream<Input>.Continuation?
    private var consumer: Task<Void, Never>?
    private var process: Process?
    private var generation = 0
    private var channel: (any Channel)?
    private var pendingFrames: [EmulatorFrame] = []
    private var pendingInterrupt = false
    /// Interrupts sent so far (a fallback SIGINT is for the latest only).
    private var interrupts = 0
    /// Whether the running interpreter has reported its link up (the 'b' frame).
    private var linked = false
    private var lastStart = ContinuousClock.now
    private var quickExits = 0
    private var frontEnd = REPLFrontEnd()

    private var client: AsyncStream<GlassesTransportEvent>.Continuation?
    private var clientConnected = false
    private var microphone: [[UInt8]] = []
    private var photoBytes: [UInt8]?

    /// Every frame drawn since power-on.
    public private(set) var displayLog: [DisplayFrame] = []
    /// Every data message the app sent.
    public private(set) var sentMessages: [Data] = []
    /// Every data message the phone wrote to the app.
    public private(set) var receivedMessages: [Data] = []
    /// Everything the REPL printed.
    public private(set) var serialLog: [UInt8] = []
    /// The FPGA flash written through `update.Fpga` since the last erase.
    public private(set) var fpgaFlash = Data()
    /// How many times the interpreter was started.
    public private(set) var boots = 0
    /// Writes received from the phone, per channel.
    public private(set) var writes: [GlassesChannel: Int] = [:]
    /// Serial bytes lost because the receive ring was full.
    public var droppedSerialBytes: Int { frontEnd.dropped }
    private var fpgaVersion: String
    /// What `device.VERSION` reports; a firmware update changes it.
    public private(set) var firmwareVersion: String
    /// The bootloader, while the glasses are in it (advertising as `DfuTarg` instead of `monocle`).
    public private(set) var bootloader: EmulatedBootloader?
    /// The last firmware image a DFU activated.
    public private(set) var installedFirmware: Data?
    private var dfuClient: AsyncStream<DFUTransportEvent>.Continuation?
    private var dfuConnected = false
    private var dfuPacketsToCorrupt: Set<Int> = []
    private var dfuPackets = 0
    private var dfuDisconnectAt: Int?
    private var notificationsToDrop = 0
    private var corruption: String?
    private var disconnectTrigger: String?

    private enum Input: Sendable {
        case channel(any Channel)
        case frame(ObjectIdentifier, EmulatorFrame)
        case closed(ObjectIdentifier)
        case printed(generation: Int, Data)
        case stderr(Data)
        case exited(generation: Int)
    }

    public init(configuration: EmulatorConfiguration, filesystem: URL) {
        self.configuration = configuration
        self.filesystem = filesystem
        fpgaVersion = configuration.fpga
        firmwareVersion = configuration.firmware
        firmwareDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-monocle-firmware-\(UUID().uuidString.prefix(8))", isDirectory: true)
        (events, eventSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(2_000))
    }

    // MARK: Power

    /// Starts the glasses: the firmware stubs are written out and `main.py` runs.
    public func powerOn() async throws {
        guard link == nil else { return }
        try FileManager.default.createDirectory(at: filesystem, withIntermediateDirectories: true)
        try FirmwareStubs.write(to: firmwareDirectory)
        let (stream, sink) = AsyncStream<Input>.makeStream()
        inputs = sink
        link = try await EmulatorLink(
            onConnect: { sink.yield(.channel($0)) },
            onFrame: { sink.yield(.frame($0, $1)) },
            onClose: { sink.yield(.closed($0)) }
        )
        consumer = Task {
            for await input in stream { self.handle(input) }
        }
        try startInterpreter(afterSoftReset: false)
    }

    /// Stops the interpreter and closes everything.
    public func powerOff() async {
        dropClient(reason: "the glasses were switched off")
        dropDFUClient(reason: "the glasses were switched off")
        stopInterpreter()
        await link?.close()
        link = nil
        inputs?.finish()
        consumer?.cancel()
        eventSink.finish()
        try? FileManager.default.removeItem(at: firmwareDirectory)
    }

    private func startInterpreter(afterSoftReset: Bool, safeMode: Bool = false) throws {
        stopInterpreter()
        generation += 1
        boots += 1
        lastStart = .now
        let current = generation
        let process = Process()
        process.executableURL = configuration.interpreter.python
        process.arguments = configuration.interpreter.arguments(script: firmwareDirectory.appendingPathComponent("_sibyl_emu.py").path)
        process.currentDirectoryURL = filesystem
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONPATH"] = configuration.interpreter.moduleDirectory
        environment["SIBYL_EMU_PORT"] = String(link?.port ?? 0)
        environment["SIBYL_EMU_CONFIG"] = configJSON(safeMode: safeMode)
        environment.removeValue(forKey: "MICROPYPATH")
        process.environment = environment
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = stdout
        process.standardError = stderr
        let sink = inputs
        PipeDrain.start(stdout.fileHandleForReading, name: "sibyl.emulator-stdout", chunk: { sink?.yield(.printed(generation: current, $0)) })
        PipeDrain.start(stderr.fileHandleForReading, name: "sibyl.emulator-stderr", chunk: { sink?.yield(.stderr($0)) })
        process.terminationHandler = { _ in sink?.yield(.exited(generation: current)) }
        perform(frontEnd.interpreterStarted(afterSoftReset: afterSoftReset))
        try process.run()
        self.process = process
        eventSink.yield(.restarted(afterSoftReset ? "soft reset" : (safeMode ? "safe mode" : "power on")))
    }

    private func stopInterpreter() {
        if let process, process.isRunning {
            kill(process.processIdentifier, SIGKILL)
        }
        process = nil
        if let channel { _ = channel.close(mode: .all) }
        channel = nil
        linked = false
        pendingFrames = []
        pendingInterrupt = false
    }

    private func configJSON(safeMode: Bool) -> String {
        var config: [String: Any] = [
            "max_length": configuration.maximumWriteLength,
            "firmware": firmwareVersion,
            "fpga": fpgaVersion,
            "safe_mode": safeMode,
            "mic_realtime": configuration.realTimeMicrophone,
            "battery": configuration.battery,
            "fast_reset": configuration.fastReset,
        ]
        if let queue = configuration.dataQueue {
            let milliseconds = queue.interval.components.seconds * 1_000 + queue.interval.components.attoseconds / 1_000_000_000_000_000
            config["data_queue"] = [queue.capacity, max(1, Int(milliseconds))]
        }
        let data = (try? JSONSerialization.data(withJSONObject: config, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    // MARK: The phone's side (used by EmulatorTransport)

    func attach(_ continuation: AsyncStream<GlassesTransportEvent>.Continuation) {
        client = continuation
    }

    func connectClient() throws {
        guard bootloader == nil else {
            throw GlassesError.transport("no Monocle is advertising: the emulated glasses are in their bootloader (DfuTarg)")
        }
        guard link != nil, process != nil else { throw GlassesError.transport("the emulated glasses are off") }
        guard !clientConnected else { return }
        clientConnected = true
        send(EmulatorFrame(.connection, Array("1".utf8)))
        client?.yield(.connected(maximumWriteLength: configuration.maximumWriteLength))
    }

    func disconnectClient() {
        dropClient(reason: "disconnected by the phone")
    }

    /// One write, already at most the MTU.
    func clientWrite(_ bytes: Data, to channel: GlassesChannel) throws {
        guard clientConnected else { throw GlassesError.notConnected }
        guard channel != .frame else { throw GlassesError.transport("a Monocle has no Frame channel") }
        writes[channel, default: 0] += 1
        switch channel {
        case .serial:
            var bytes = [UInt8](bytes)
            if let corruption, let text = String(bytes: bytes, encoding: .utf8), text.contains(corruption),
               let position = bytes.firstIndex(of: UInt8(ascii: "'")).map({ $0 + 1 }), position < bytes.count {
                // Damage one character of the quoted payload, as radio noise would.
                bytes[position] = UInt8(ascii: "!")
                self.corruption = nil
            }
            if let trigger = disconnectTrigger, String(decoding: bytes, as: UTF8.self).contains(trigger) {
                disconnectTrigger = nil
                dropClient(reason: "fault injected")
                return
            }
            perform(frontEnd.receive(bytes))
        case .data, .frame:
            receivedMessages.append(bytes)
            send(EmulatorFrame(.dataWrite, [UInt8](bytes)))
        }
    }

    private func dropClient(reason: String) {
        guard clientConnected else { return }
        clientConnected = false
        send(EmulatorFrame(.connection, Array("0".utf8)))
        client?.yield(.disconnected(reason: reason))
    }

    // MARK: The bootloader (DfuTarg)

    /// Restarts the glasses into their DFU bootloader, as `update.micropython()` does (or as glasses
    /// left there by a failed update are found).
    public func enterBootloader() {
        dropClient(reason: "the glasses entered the firmware bootloader")
        stopInterpreter()
        bootloader = EmulatedBootloader(settings: configuration.bootloader)
        eventSink.yield(.restarted("bootloader (DfuTarg)"))
    }

    func attachDFU(_ continuation: AsyncStream<DFUTransportEvent>.Continuation) {
        dfuClient = continuation
    }

    func connectDFUClient() throws {
        guard bootloader != nil else { throw DFUError.bootloaderNotFound("no DfuTarg is advertising (the emulated glasses run their app)") }
        guard !dfuConnected else { return }
        dfuConnected = true
        dfuClient?.yield(.connected(maximumWriteLength: configuration.maximumWriteLength))
    }

    func disconnectDFUClient() {
        dropDFUClient(reason: "disconnected by the phone")
    }

    func dfuControl(_ bytes: Data) throws {
        guard dfuConnected, var bootloader else { throw DFUError.disconnected("not connected to DfuTarg") }
        let outcome = bootloader.control(bytes)
        self.bootloader = bootloader
        for notification in outcome.notifications { dfuClient?.yield(.notification(notification)) }
        if let image = outcome.activated { activate(image) }
    }

    func dfuPacket(_ bytes: Data) throws {
        guard dfuConnected, var bootloader else { throw DFUError.disconnected("not connected to DfuTarg") }
        dfuPackets += 1
        var bytes = bytes
        if dfuPacketsToCorrupt.remove(dfuPackets) != nil, !bytes.isEmpty {
            bytes[bytes.startIndex] ^= 0xFF // radio noise
        }
        let outcome = bootloader.packet(bytes)
        self.bootloader = bootloader
        for notification in outcome.notifications { dfuClient?.yield(.notification(notification)) }
        if let limit = dfuDisconnectAt, bootloader.firmware.count >= limit {
            dfuDisconnectAt = nil
            dropDFUClient(reason: "fault injected")
        }
    }

    private func dropDFUClient(reason: String) {
        guard dfuConnected else { return }
        dfuConnected = false
        dfuClient?.yield(.disconnected(reason: reason))
    }

    /// The bootloader verified a whole image: it resets into the new firmware.
    private func activate(_ image: Data) {
        installedFirmware = image
        if let version = DFUPackage.embeddedVersion(in: image) {
            firmwareVersion = version
        } else {
            eventSink.yield(.log("the new firmware image holds no version string; device.VERSION stays \(firmwareVersion)"))
        }
        dropDFUClient(reason: "the bootloader restarted the glasses into the new firmware")
        bootloader = nil
        try? startInterpreter(afterSoftReset: false)
    }

    /// Restarts the glasses out of their bootloader into the application they have (as the reset
    /// button, or the bootloader's inactivity timeout, does).
    public func leaveBootloader() {
        guard bootloader != nil else { return }
        dropDFUClient(reason: "the glasses restarted")
        bootloader = nil
        try? startInterpreter(afterSoftReset: false)
    }

    /// Drops the DfuTarg link once the bootloader holds `bytes` firmware bytes.
    public func disconnectBootloader(atFirmwareByte bytes: Int) {
        dfuDisconnectAt = bytes
    }

    /// Damages the first byte of these DFU packet writes, counted from the next one (1).
    public func corruptDFUPackets(_ numbers: Set<Int>) {
        dfuPacketsToCorrupt = Set(numbers.map { $0 + dfuPackets })
    }

    // MARK: The wearer's side

    /// A short tap on a touch pad (`A`, `B` or `BOTH`): the press and the release are sent
    /// together, so that a busy machine, which may wake this task late, can never stretch a tap
    /// into a hold (the device app takes a photo after a second's press).
    public func tap(_ pad: String = "A") async {
        send(EmulatorFrame(.touchDown, Array(pad.utf8)))
        send(EmulatorFrame(.touchUp))
    }

    /// A press held for a while (Sibyl's app takes a photo after one second).
    public func hold(_ pad: String = "A", for duration: Duration = .milliseconds(1_300)) async {
        send(EmulatorFrame(.touchDown, Array(pad.utf8)))
        try? await Task.sleep(for: duration)
        send(EmulatorFrame(.touchUp))
    }

    /// What the microphone hears next: a WAV file of any rate and layout.
    ///
    /// The clip is band-limited and resampled here, once for each rate the firmware records at
    /// (16 and 8 kHz), as the microphone's own filter would; the stubs only pick samples.
    public func speak(wav: Data) throws {
        let buffer = try PCMBuffer(wav: wav)
        let mono = AudioResampling.mixToMono(buffer)
        microphone = [16_000, 8_000].map { rate in
            var payload: [UInt8] = withUnsafeBytes(of: UInt32(rate).bigEndian) { Array($0) }
            for sample in AudioResampling.pcm16(AudioResampling.resample(mono, from: buffer.sampleRate, to: rate)) {
                withUnsafeBytes(of: sample.littleEndian) { payload.append(contentsOf: $0) }
            }
            return payload
        }
        for clip in microphone { send(EmulatorFrame(.microphone, clip)) }
    }

    /// What the camera sees next (JPEG bytes).
    public func photo(jpeg: Data) {
        photoBytes = [UInt8](jpeg)
        send(EmulatorFrame(.photo, [UInt8](jpeg)))
    }

    // MARK: Faults

    /// Drops the link to the phone, as walking out of range would.
    public func disconnect(reason: String = "fault injected") {
        dropClient(reason: reason)
    }

    /// Loses the next `count` data-channel notifications.
    public func dropNotifications(_ count: Int) {
        notificationsToDrop += count
    }

    /// Damages one byte (the first after a quote) of the next serial write that contains `text`.
    public func corruptNextWrite(containing text: String) {
        corruption = text
    }

    /// Forgets the write counts.
    public func resetWriteCounts() {
        writes = [:]
    }

    /// Drops the link when a serial write contains `text` (before the glasses see it).
    public func disconnectWhenSerialContains(_ text: String) {
        disconnectTrigger = text
    }

    // MARK: Observation

    /// The latest frame drawn.
    public var screen: DisplayFrame? { displayLog.last }

    /// Waits for a frame that satisfies `condition`, checking the frames drawn since `after`.
    public func waitForScreen(after: Int = 0, timeout: Duration = .seconds(30), where condition: @Sendable (DisplayFrame) -> Bool) async throws -> DisplayFrame {
        let deadline = ContinuousClock.now + timeout
        var checked = after
        while ContinuousClock.now < deadline {
            while checked < displayLog.count {
                if condition(displayLog[checked]) { return displayLog[checked] }
                checked += 1
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw GlassesError.timeout(waitingFor: "the glasses' display", after: timeout)
    }

    // MARK: Inputs, in order

    private func handle(_ input: Input) {
        switch input {
        case .channel(let channel):
            self.channel = channel
            // Tell the new interpreter what the world looks like, then what was queued.
            var hello: [EmulatorFrame] = [EmulatorFrame(.connection, Array((clientConnected ? "1" : "0").utf8))]
            hello += microphone.map { EmulatorFrame(.microphone, $0) }
            if let photoBytes { hello.append(EmulatorFrame(.photo, photoBytes)) }
            for frame in hello + pendingFrames { EmulatorLink.send(frame, on: channel) }
            pendingFrames = []
        case .frame(let id, let frame):
            guard let channel, ObjectIdentifier(channel) == id else { return }
            receive(frame)
        case .closed(let id):
            if let channel, ObjectIdentifier(channel) == id { self.channel = nil }
        case .printed(let from, let data):
            guard from == generation else { return }
            let wasRunning = frontEnd.phase != .idle
            perform(frontEnd.interpreterPrinted([UInt8](data)))
            // An interrupt held back until the interpreter's link came up was meant for code that
            // has now ended (its output can overtake the link's arrival): it must not hit the next command.
            if wasRunning && frontEnd.phase == .idle { pendingInterrupt = false }
        case .stderr(let data):
            for line in String(decoding: data, as: UTF8.self).split(separator: "\n") { eventSink.yield(.log(String(line))) }
        case .exited(let from):
            guard from == generation, process != nil else { return }
            dropClient(reason: "the glasses restarted")
            // The interpreter died on its own: like a crash on the device, the glasses restart;
            // unless it dies as soon as it starts (a broken firmware stub), which would only spin.
            quickExits = ContinuousClock.now - lastStart < .seconds(2) ? quickExits + 1 : 0
            guard quickExits < 3 else {
                eventSink.yield(.log("the interpreter exits as soon as it starts (3 times in a row); the glasses stay off"))
                stopInterpreter()
                return
            }
            eventSink.yield(.log("the interpreter exited; restarting the glasses"))
            try? startInterpreter(afterSoftReset: false)
        }
    }

    private func receive(_ frame: EmulatorFrame) {
        switch frame.kind {
        case .dataNotify:
            sentMessages.append(Data(frame.payload))
            eventSink.yield(.dataSent(Data(frame.payload)))
            guard clientConnected else { return }
            if notificationsToDrop > 0 {
                notificationsToDrop -= 1
                return
            }
            client?.yield(.received(.data, Data(frame.payload)))
        case .display:
            let shown = DisplayFrame(time: ContinuousClock.now - started, json: frame.payload)
            displayLog.append(shown)
            eventSink.yield(.display(shown))
        case .led:
            let info = (try? JSONSerialization.jsonObject(with: Data(frame.payload))) as? [String: Any] ?? [:]
            eventSink.yield(.led(info["led"] as? String ?? "?", on: info["on"] as? Bool ?? false))
        case .fpgaErase:
            fpgaFlash = Data()
        case .fpgaWrite:
            fpgaFlash.append(contentsOf: frame.payload)
        case .reset:
            if fpgaFlash.suffix(4) == Data("done".utf8), let updated = configuration.fpgaAfterUpdate {
                fpgaVersion = updated
            }
            dropClient(reason: "the glasses restarted")
            try? startInterpreter(afterSoftReset: false)
        case .bootloader:
            enterBootloader()
        case .boot:
            // The interpreter's end of the link is set up: an interrupt can no longer cut it short.
            linked = true
            if pendingInterrupt { interrupt() }
        case .executeRaw, .executeFriendly, .executePasted, .dataWrite, .touchDown, .touchUp, .connection, .microphone, .photo, .interrupt:
            break
        }
    }

    private func perform(_ actions: [REPLFrontEnd.Action]) {
        for action in actions {
            switch action {
            case .output(let bytes):
                serialLog.append(contentsOf: bytes)
                eventSink.yield(.serial(String(decoding: bytes, as: UTF8.self)))
                guard clientConnected else { continue }
                for piece in Data(bytes).pieces(of: configuration.maximumWriteLength) {
                    client?.yield(.received(.serial, piece))
                }
            case .execute(let code, let raw):
                send(EmulatorFrame(raw ? .executeRaw : .executeFriendly, Array(code.utf8)))
            case .executePasted(let code):
                send(EmulatorFrame(.executePasted, Array(code.utf8)))
            case .interrupt:
                // Until the interpreter says its link is up, hold it: before, MicroPython may not
                // have its SIGINT handler yet (the signal would kill the host Python), and a ^C in
                // the middle of connecting would leave a half-made link.
                if channel == nil || !linked { pendingInterrupt = true } else { interrupt() }
            case .softReset:
                try? startInterpreter(afterSoftReset: true)
            case .safeModeReset:
                try? startInterpreter(afterSoftReset: true, safeMode: true)
            }
        }
    }

    /// ^C for running code: an 'I' frame, raised as KeyboardInterrupt where the program next polls
    /// the firmware (the stubs do between bits of work). Code that never polls gets SIGINT after a
    /// second. That is a last resort: this MicroPython raises it straight from the signal handler,
    /// wherever the interpreter is, which can leave a lock held.
    private func interrupt() {
        pendingInterrupt = false
        send(EmulatorFrame(.interrupt))
        interrupts += 1
        let (which, current) = (interrupts, generation)
        Task {
            try? await Task.sleep(for: .seconds(1))
            self.forceInterrupt(which, generation: current)
        }
    }

    private func forceInterrupt(_ which: Int, generation current: Int) {
        guard which == interrupts, current == generation, frontEnd.phase != .idle, let process, process.isRunning else { return }
        eventSink.yield(.log("the running code ignored ^C for a second; sending SIGINT"))
        kill(process.processIdentifier, SIGINT)
    }

    private func send(_ frame: EmulatorFrame) {
        if let channel {
            EmulatorLink.send(frame, on: channel)
        } else if frame.kind != .connection && frame.kind != .microphone && frame.kind != .photo {
            pendingFrames.append(frame)
        }
    }
}
