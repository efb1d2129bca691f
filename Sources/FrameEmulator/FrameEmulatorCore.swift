import CFrameLua
import Foundation
import SecureDFU
import Synchronization

/// The C device handle; used from any thread because the C side locks its own state.
struct DeviceHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// Where the virtual Frame's power is.
public enum FramePowerState: Sendable, Equatable {
    /// Off (never started, or powered off).
    case off
    /// Running Lua (booting, in an app or idle in the REPL loop).
    case running
    /// Deep sleep after `frame.sleep()`: a tap wakes it, which reboots.
    case asleep
    /// In the DFU bootloader after `frame.update()`.
    case bootloader
}

/// Mutable state shared by the VM thread, the C callbacks and the API.
struct CoreState {
    var power = FramePowerState.off
    var threadRunning = false
    var boots = 0
    /// The last boot that reached the REPL loop.
    var idleBoot = 0
    var enteredBootloader = false
    var display = FrameDisplayState()
    var exitWaiters: [CheckedContinuation<Void, Never>] = []
    var bootWaiters: [CheckedContinuation<Bool, Never>] = []
    /// Told when the Frame itself drops a host's link (it restarted into its bootloader).
    var linkWatchers: [Int: @Sendable (String) -> Void] = [:]
    var nextWatcher = 0
}

/// What the C callbacks reach (through an unretained pointer): the shared state and the stream.
final class CoreSink: Sendable {
    let state = Mutex(CoreState())
    let continuation: AsyncStream<Data>.Continuation

    init(continuation: AsyncStream<Data>.Continuation) {
        self.continuation = continuation
    }

    static func from(_ context: UnsafeMutableRawPointer?) -> CoreSink {
        Unmanaged<CoreSink>.fromOpaque(context!).takeUnretainedValue()
    }
}

/// Owns the C device and the VM thread. The callbacks' sink lives as long as this object, which
/// the VM thread holds while it runs.
final class FrameEmulatorCore: Sendable {
    let sink: CoreSink
    let device: DeviceHandle
    /// The bootloader's settings ("Frame Update").
    let bootloaderSettings: EmulatedBootloader.Settings
    /// The bootloader and its DFU link; separate from `sink.state`, which the VM thread locks often.
    let dfu: Mutex<FrameBootloaderState>

    var continuation: AsyncStream<Data>.Continuation { sink.continuation }

    /// The app the boot runs, on the emulated flash.
    private let mainLua: URL

    init(configuration: FrameEmulatorConfiguration, flash: URL, continuation: AsyncStream<Data>.Continuation) throws {
        mainLua = flash.appendingPathComponent("main.lua")
        let sink = CoreSink(continuation: continuation)
        self.sink = sink
        bootloaderSettings = configuration.bootloader
        dfu = Mutex(FrameBootloaderState(firmwareVersion: configuration.firmwareVersion))
        var callbacks = cframe_callbacks()
        callbacks.context = Unmanaged.passUnretained(sink).toOpaque()
        callbacks.notify = { context, bytes, length in
            CoreSink.from(context).continuation.yield(bytes.map { Data(bytes: $0, count: length) } ?? Data())
        }
        callbacks.display = { context, op in
            if let op { CoreSink.from(context).record(op.pointee) }
        }
        callbacks.booted = { context, boots in
            let waiters = CoreSink.from(context).state.withLock { state in
                state.boots = Int(boots)
                defer { state.bootWaiters = [] }
                return state.bootWaiters
            }
            for waiter in waiters { waiter.resume(returning: true) }
        }
        callbacks.idle = { context, boots in
            CoreSink.from(context).state.withLock { $0.idleBoot = Int(boots) }
        }
        let pointer = flash.path.withCString { flashPath in
            configuration.firmwareVersion.withCString { firmware in
                configuration.gitTag.withCString { tag in
                    configuration.hardwareVersion.withCString { hardware in
                        configuration.bluetoothAddress.withCString { address in
                            var config = cframe_config(
                                flash_path: flashPath, firmware_version: firmware, git_tag: tag,
                                hardware_version: hardware, address: address,
                                paired: configuration.isPaired ? 1 : 0,
                                notify_interval: configuration.notificationSlotTime.seconds,
                                virtual_clock: configuration.clock == .virtual ? 1 : 0,
                                capture_latency: configuration.captureLatency.seconds,
                                battery_level: configuration.batteryLevel)
                            return cframe_create(&config, callbacks)
                        }
                    }
                }
            }
        }
        guard let pointer else { throw FrameEmulatorError.startFailed }
        device = DeviceHandle(pointer: pointer)
    }

    deinit {
        cframe_destroy(device.pointer)
    }

    /// Starts the VM thread (cold = power-on or wake, so clock and peripherals start over) and waits
    /// until its Lua state exists.
    func start(cold: Bool) async throws {
        let started = sink.state.withLock { state -> Bool in
            guard !state.threadRunning else { return false }
            state.threadRunning = true
            state.power = .running
            if cold { state.display = FrameDisplayState(display: state.display) }
            return true
        }
        guard started else { return }
        let booted = await withCheckedContinuation { (waiter: CheckedContinuation<Bool, Never>) in
            sink.state.withLock { $0.bootWaiters.append(waiter) }
            let thread = Thread { [self] in
                let reason = cframe_run(device.pointer, cold ? 1 : 0)
                stopped(reason: reason)
            }
            thread.name = "Frame Lua VM"
            thread.stackSize = 8 << 20
            thread.start()
        }
        if !booted { throw FrameEmulatorError.startFailed }
        // A host connects only after boot: give main.lua a moment to return so what it says at boot
        // goes nowhere, as on the glasses. An app that keeps running is left running. Without one,
        // the boot's complaint and the pairing screen always end in the REPL loop: wait for it
        // however busy the machine (a minute, against hangs).
        let settle: Duration = FileManager.default.fileExists(atPath: mainLua.path) ? .milliseconds(250) : .seconds(60)
        let deadline = ContinuousClock.now + settle
        while ContinuousClock.now < deadline, sink.state.withLock({ $0.idleBoot < $0.boots && $0.threadRunning }) {
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Runs on the VM thread when `cframe_run` returns.
    private func stopped(reason: Int32) {
        cframe_disconnect(device.pointer)
        let intoBootloader = Int(reason) == Int(CFRAME_STOP_BOOTLOADER.rawValue)
        if intoBootloader {
            // The bootloader is up (and advertising) before anyone hears of the restart.
            dfu.withLock { $0.bootloader = EmulatedBootloader(settings: bootloaderSettings) }
        }
        let (exits, boots) = sink.state.withLock { state in
            state.threadRunning = false
            switch Int(reason) {
            case Int(CFRAME_STOP_DEEP_SLEEP.rawValue): state.power = .asleep
            case Int(CFRAME_STOP_BOOTLOADER.rawValue):
                state.power = .bootloader
                state.enteredBootloader = true
            default: state.power = .off
            }
            defer {
                state.exitWaiters = []
                state.bootWaiters = []
            }
            return (state.exitWaiters, state.bootWaiters)
        }
        for waiter in boots { waiter.resume(returning: false) }
        for waiter in exits { waiter.resume() }
        if intoBootloader {
            linkDropped(reason: "Frame restarted into its bootloader (Frame Update)")
        }
    }

    /// Tells the host side that the Frame dropped its link.
    func linkDropped(reason: String) {
        let watchers = sink.state.withLock { Array($0.linkWatchers.values) }
        for watcher in watchers { watcher(reason) }
    }

    /// Registers a watcher for links the Frame drops; returns its key for `unwatchLink`.
    func watchLink(_ watcher: @escaping @Sendable (String) -> Void) -> Int {
        sink.state.withLock { state in
            state.nextWatcher += 1
            state.linkWatchers[state.nextWatcher] = watcher
            return state.nextWatcher
        }
    }

    func unwatchLink(_ key: Int) {
        _ = sink.state.withLock { $0.linkWatchers.removeValue(forKey: key) }
    }

    /// Stops the VM thread and waits for it.
    func stop() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let running = sink.state.withLock { state in
                if state.threadRunning { state.exitWaiters.append(waiter) }
                return state.threadRunning
            }
            if running { cframe_power_off(device.pointer) } else { waiter.resume() }
        }
        cframe_disconnect(device.pointer)
        sink.state.withLock { $0.power = .off }
    }

    /// Stops the VM thread from a synchronous context (deinit), blocking until it is gone.
    func stopBlocking() {
        guard sink.state.withLock({ $0.threadRunning }) else { return }
        cframe_power_off(device.pointer)
        while sink.state.withLock({ $0.threadRunning }) { usleep(1000) }
    }
}

extension CoreSink {
    /// Applies a display operation to the display state.
    func record(_ op: cframe_display_op) {
        state.withLock { state in
            var display = state.display
            switch Int(op.kind) {
            case Int(CFRAME_DISPLAY_TEXT.rawValue):
                let text = String(decoding: UnsafeRawBufferPointer(start: op.bytes, count: op.length), as: UTF8.self)
                let offset = Int(op.palette)
                let color = display.palette[min(15, offset + 1)].name
                display.pending.append(.text(text, x: Int(op.x), y: Int(op.y), color: color, paletteOffset: offset, spacing: Int(op.spacing)))
            case Int(CFRAME_DISPLAY_BITMAP.rawValue):
                let pixels = op.bytes.map { Data(bytes: $0, count: op.length) } ?? Data()
                display.pending.append(.bitmap(x: Int(op.x), y: Int(op.y), width: Int(op.width), totalColors: Int(op.total_colors),
                                               paletteOffset: Int(op.palette), pixels: pixels))
            case Int(CFRAME_DISPLAY_SHOW.rawValue):
                display.frames.append(FrameDisplayFrame(drawings: display.pending, palette: display.palette))
                display.pending = []
            case Int(CFRAME_DISPLAY_ASSIGN_COLOR.rawValue):
                let index = Int(op.palette)
                display.palette[index].y = Int(op.ycbcr.0)
                display.palette[index].cb = Int(op.ycbcr.1)
                display.palette[index].cr = Int(op.ycbcr.2)
                display.palette[index].rgb = op.rgb.0 < 0 ? nil : [Int(op.rgb.0), Int(op.rgb.1), Int(op.rgb.2)]
            case Int(CFRAME_DISPLAY_POWER_SAVE.rawValue):
                display.isPowerSaving = op.value != 0
            case Int(CFRAME_DISPLAY_BRIGHTNESS.rawValue):
                display.brightness = Int(op.value)
            case Int(CFRAME_DISPLAY_WRITE_REGISTER.rawValue):
                display.registers[Int(op.x)] = Int(op.value)
            default:
                break
            }
            state.display = display
        }
    }
}

extension FrameDisplayState {
    /// A display after power-on: default palette and settings; the log of earlier frames is kept.
    init(display: FrameDisplayState) {
        self.init()
        frames = display.frames
    }
}
