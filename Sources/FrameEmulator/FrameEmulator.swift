import CFrameLua
import Foundation
import Synchronization

/// A virtual Brilliant Labs Frame: device apps run under Lua 5.4 with the firmware's BLE write
/// routing, REPL loop, `require`, `print` and `frame.*` API, so host code and device apps can be
/// tested without glasses.
///
/// The host side is a BLE central in miniature: `connect(mtu:)`, `write(_:)` to the host→Frame
/// characteristic (routed by its first byte: 0x01 data, 0x03 break, 0x04 reset, else Lua), and
/// `notifications` for everything the Frame→host characteristic notifies (data notifications keep
/// their 0x01 prefix). The wearer's side is `tap()`, `setMicrophoneInput`, `setCameraImage` and
/// `setIMU`; what was drawn is in `display`. The flash is the directory `flash`.
///
/// The Lua VM runs on its own thread. Lua errors are raised only by the C shim, never across Swift.
///
/// Faithful to the firmware (luaport.c, bluetooth.c, lua_libraries/*.c): one REPL buffer and one
/// data buffer that later writes overwrite; one hook slot shared by data, taps and decompressed
/// blocks (a newer event replaces a pending one; none runs inside a callback); break raises
/// `"break signal"` in running code, also inside `frame.sleep`; 0x04 resets only from the idle REPL
/// loop; `require` reruns `<name>.lua` with the file name as chunk name (errors read
/// `[string "main.lua"]:2: …`, wrapped in `exiting module '…'`); `print` sends one notification per
/// argument with `"\t"` ones between, dropped when disconnected, busy or longer than MTU − 3.
///
/// Approximations: glyph metrics are not modelled (text positions are checked as if every glyph
/// were 48 px high, the whole string is logged); the camera serves the configured JPEG whatever the
/// resolution and quality; `auto{}` returns a converged mid-grey result; events are delivered by a
/// permanent count hook rather than a one-shot one, so coroutines created by the app receive them
/// too; data, break and tap writes that land while the VM reboots are lost.
public final class FrameEmulator: Sendable {
    /// Everything the Frame notified, in order (one element per notification).
    public let notifications: AsyncStream<Data>
    /// The emulated flash filesystem (littlefs on a real Frame).
    public let flash: URL
    let core: FrameEmulatorCore

    /// A powered-off Frame whose flash is the directory `flash` (created if missing).
    public init(configuration: FrameEmulatorConfiguration = FrameEmulatorConfiguration(), flash: URL) throws {
        try FileManager.default.createDirectory(at: flash, withIntermediateDirectories: true)
        self.flash = flash.standardizedFileURL
        let (stream, continuation) = AsyncStream<Data>.makeStream()
        notifications = stream
        core = try FrameEmulatorCore(configuration: configuration, flash: self.flash, continuation: continuation)
        setCameraImage(jpeg: Self.placeholderJPEG)
    }

    deinit {
        core.stopBlocking()
        core.continuation.finish()
    }

    // MARK: Power

    /// Powers on (or wakes) the Frame: boots Lua, runs `main.lua`, and returns once the VM is up.
    public func powerOn() async throws {
        closeBootloader(reason: "Frame restarted") // switching it off and on leaves the bootloader
        try await core.start(cold: true)
    }

    /// Powers off: interrupts running Lua, drops the connection and waits for the VM thread to end.
    public func powerOff() async {
        closeBootloader(reason: "Frame was switched off")
        await core.stop()
    }

    /// Off, running, deep-asleep or in the bootloader.
    public var powerState: FramePowerState { core.sink.state.withLock { $0.power } }

    /// Whether `frame.update()` sent the Frame into its DFU bootloader.
    public var enteredBootloader: Bool { core.sink.state.withLock { $0.enteredBootloader } }

    /// How many Lua states have been started (power-ons, wakes and 0x04 resets).
    public var boots: Int { core.sink.state.withLock { $0.boots } }

    /// The C device, for extensions in this module.
    var deviceHandle: DeviceHandle { core.device }

    /// Seconds the device clock has run since power-on (virtual or real).
    public var clock: Double { cframe_clock(core.device.pointer) }

    // MARK: Bluetooth

    /// Connects a host that exchanged this ATT MTU (nil: no exchange, so `max_length()` is −1).
    public func connect(mtu: Int? = 247) throws {
        guard powerState == .running else { throw FrameEmulatorError.poweredOff }
        cframe_connect(core.device.pointer, Int32(mtu ?? 0))
    }

    /// Drops the connection.
    public func disconnect() {
        cframe_disconnect(core.device.pointer)
    }

    /// Whether a host is connected.
    public var isConnected: Bool { cframe_is_connected(core.device.pointer) != 0 }

    /// The longest write the BLE stack accepts now (the ATT payload, MTU − 3).
    public var maximumWriteLength: Int { Int(cframe_max_write(core.device.pointer)) }

    /// A host write to the Frame's receive characteristic, routed by its first byte as the
    /// firmware does. Throws for writes the BLE link itself would refuse.
    public func write(_ bytes: Data) async throws {
        let result = bytes.withUnsafeBytes { raw in
            cframe_write(core.device.pointer, raw.bindMemory(to: UInt8.self).baseAddress, raw.count)
        }
        switch result {
        case CFRAME_WRITE_OK.rawValue: return
        case CFRAME_WRITE_NOT_CONNECTED.rawValue: throw FrameEmulatorError.notConnected
        case CFRAME_WRITE_EMPTY.rawValue: throw FrameEmulatorError.emptyWrite
        default: throw FrameEmulatorError.writeTooLong(length: bytes.count, maximum: maximumWriteLength)
        }
    }

    /// Writes a Lua chunk (UTF-8).
    public func send(lua: String) async throws {
        try await write(Data(lua.utf8))
    }

    // MARK: Wearer and peripherals

    /// A tap on the glasses: runs the `frame.imu.tap_callback` function, or wakes a sleeping Frame.
    public func tap() async throws {
        switch powerState {
        case .asleep: try await core.start(cold: true)
        case .running: cframe_tap(core.device.pointer)
        default: break
        }
    }

    /// What the microphone hears: signed 16-bit samples at `sampleRate` (16000 or 8000), played
    /// from `frame.microphone.start` on at the device clock's pace, then silence.
    ///
    /// With `fromNow`, the input plays from this moment on, as the wearer's surroundings would speak
    /// it, and the microphone hears whatever part plays while it runs (live captions, paused and
    /// resumed); otherwise each start of the microphone hears it from its beginning (a question
    /// asked after the tap).
    public func setMicrophoneInput(samples: [Int16], sampleRate: Int = 16000, fromNow: Bool = false) {
        // The PDM microphone runs at 16 kHz; slower input is repeated to that rate.
        let factor = max(1, 16000 / max(1, sampleRate))
        let pdm = factor == 1 ? samples : samples.flatMap { Array(repeating: $0, count: factor) }
        pdm.withUnsafeBufferPointer { cframe_set_microphone_input(core.device.pointer, $0.baseAddress, $0.count, fromNow ? 1 : 0) }
    }

    /// The JPEG every capture returns. Its first 623 bytes stand for the firmware's JFIF header
    /// (what `camera.read` sends first and `camera.read_raw` leaves out); a trailing FF D9 is the footer.
    public func setCameraImage(jpeg: Data) {
        jpeg.withUnsafeBytes { raw in
            cframe_set_camera_image(core.device.pointer, raw.bindMemory(to: UInt8.self).baseAddress, raw.count)
        }
    }

    /// Raw IMU readings: `frame.imu.raw()` returns them and `direction()` derives pitch and roll.
    public func setIMU(accelerometer: (x: Double, y: Double, z: Double), compass: (x: Double, y: Double, z: Double) = (0, 0, 0)) {
        let a = [accelerometer.x, accelerometer.y, accelerometer.z]
        let c = [compass.x, compass.y, compass.z]
        a.withUnsafeBufferPointer { a in
            c.withUnsafeBufferPointer { c in cframe_set_imu(core.device.pointer, a.baseAddress, c.baseAddress) }
        }
    }

    /// The display: palette, back buffer and every shown frame.
    public var display: FrameDisplayState { core.sink.state.withLock { $0.display } }

    // MARK: Flash

    /// Writes a file onto the flash (as an upload would).
    public func writeFile(_ name: String, contents: Data) throws {
        let url = flash.appending(path: name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try contents.write(to: url)
    }

    /// Writes a text file onto the flash.
    public func writeFile(_ name: String, text: String) throws {
        try writeFile(name, contents: Data(text.utf8))
    }

    /// A file's contents, or nil if the flash has no such file.
    public func readFile(_ name: String) -> Data? {
        try? Data(contentsOf: flash.appending(path: name))
    }

    /// The names in the flash's root directory, sorted.
    public func fileNames() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: flash.path)) ?? []).sorted()
    }

    /// The image captures return until `setCameraImage` is called: 623 header bytes, a small
    /// scan, FF D9 (shaped like the firmware's output, though not a decodable picture).
    static let placeholderJPEG: Data = {
        var bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0]
        bytes += (0..<(623 - bytes.count)).map { UInt8($0 & 0x7F) }
        bytes += (0..<1000).map { UInt8(($0 * 7) & 0xFE) }
        bytes += [0xFF, 0xD9]
        return Data(bytes)
    }()
}
