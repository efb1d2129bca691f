import Foundation
import Glasses
import SecureDFU
import NIOCore
import SibylCore

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
    let eventSink: AsyncStream<EmulatorEvent>.Continuation
    let configuration: EmulatorConfiguration
    /// The device's filesystem (where `main.py` lives).
    public nonisolated let filesystem: URL
    let firmwareDirectory: URL
    let started = ContinuousClock.now

    var link: EmulatorLink?
    var inputs: AsyncStream<Input>.Continuation?
    var consumer: Task<Void, Never>?
    var process: Process?
    var generation = 0
    var channel: (any Channel)?
    var pendingFrames: [EmulatorFrame] = []
    var pendingInterrupt = false
    /// Syncs sent to the interpreter and not yet answered, by token.
    var syncs: [UInt32: CheckedContinuation<Void, Never>] = [:]
    var nextSync: UInt32 = 0
    /// Interrupts sent so far (a fallback SIGINT is for the latest only).
    var interrupts = 0
    /// Whether the running interpreter has reported its link up (the 'b' frame).
    var linked = false
    var lastStart = ContinuousClock.now
    var quickExits = 0
    var frontEnd = REPLFrontEnd()

    var client: AsyncStream<GlassesTransportEvent>.Continuation?
    var clientConnected = false
    var microphone: [[UInt8]] = []
    var photoBytes: [UInt8]?

    /// Every frame drawn since power-on.
    public internal(set) var displayLog: [DisplayFrame] = []
    /// Every data message the app sent.
    public internal(set) var sentMessages: [Data] = []
    /// Every data message the phone wrote to the app.
    public internal(set) var receivedMessages: [Data] = []
    /// Everything the REPL printed.
    public internal(set) var serialLog: [UInt8] = []
    /// The FPGA flash written through `update.Fpga` since the last erase.
    public internal(set) var fpgaFlash = Data()
    /// How many times the interpreter was started.
    public internal(set) var boots = 0
    /// Writes received from the phone, per channel.
    public internal(set) var writes: [GlassesChannel: Int] = [:]
    /// Serial bytes lost because the receive ring was full.
    public var droppedSerialBytes: Int { frontEnd.dropped }
    var fpgaVersion: String
    /// What `device.VERSION` reports; a firmware update changes it.
    public internal(set) var firmwareVersion: String
    /// The bootloader, while the glasses are in it (advertising as `DfuTarg` instead of `monocle`).
    public internal(set) var bootloader: EmulatedBootloader?
    /// The last firmware image a DFU activated.
    public internal(set) var installedFirmware: Data?
    var dfuClient: AsyncStream<DFUTransportEvent>.Continuation?
    var dfuConnected = false
    var dfuPacketsToCorrupt: Set<Int> = []
    var dfuPackets = 0
    var dfuDisconnectAt: Int?
    var notificationsToDrop = 0
    var corruption: String?
    var disconnectTrigger: String?

    enum Input: Sendable {
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

    func startInterpreter(afterSoftReset: Bool, safeMode: Bool = false) throws {
        stopInterpreter()
        generation += 1
        boots += 1
        lastStart = .now
        let current = generation
        let process = Process()
        process.executableURL = configuration.interpreter.python
        process.arguments = configuration.interpreter.arguments(
            script: firmwareDirectory.appendingPathComponent("_sibyl_emu.py").path, heap: configuration.continuousMicrophone ? "32M" : nil
        )
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

    func stopInterpreter() {
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

    func configJSON(safeMode: Bool) -> String {
        var config: [String: Any] = [
            "max_length": configuration.maximumWriteLength,
            "firmware": firmwareVersion,
            "fpga": fpgaVersion,
            "safe_mode": safeMode,
            "mic_realtime": configuration.realTimeMicrophone,
            "mic_continuous": configuration.continuousMicrophone,
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

    // MARK: Observation

    /// The latest frame drawn.
    public var screen: DisplayFrame? { displayLog.last }

    /// Waits for a frame that satisfies `condition`, checking the frames drawn since `after`. The
    /// timeout is a ceiling against hangs: a machine running a whole test suite on two cores has
    /// kept the virtual glasses' first screen waiting past 30 s.
    public func waitForScreen(after: Int = 0, timeout: Duration = .seconds(300), where condition: @Sendable (DisplayFrame) -> Bool) async throws -> DisplayFrame {
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
}
