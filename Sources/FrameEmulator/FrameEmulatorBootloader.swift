import CFrameLua
import Foundation
import SecureDFU
import Synchronization

/// The virtual Frame's DFU bootloader and the link a DFU client holds to it.
struct FrameBootloaderState {
    /// Present while the Frame is in its bootloader.
    var bootloader: EmulatedBootloader?
    /// Where the bootloader's notifications and link events go (the last client that attached).
    var client: AsyncStream<DFUTransportEvent>.Continuation?
    var connected = false
    /// Drops the DFU link once the bootloader holds this many firmware bytes (a fault for tests).
    var disconnectAt: Int?
    /// The last image a DFU activated.
    var installedFirmware: Data?
    /// `frame.FIRMWARE_VERSION` as of the next boot.
    var firmwareVersion: String
    /// What the bootloader had to say (an image without a version string, for one).
    var log: [String] = []

    /// Ends the DFU link, returning the client to tell (outside the lock).
    mutating func dropClient() -> AsyncStream<DFUTransportEvent>.Continuation? {
        guard connected else { return nil }
        connected = false
        return client
    }
}

/// The bootloader ("Frame Update"): entered by `frame.update()` (or `enterBootloader()`), it takes
/// a signed application package by Nordic Secure DFU (through ``EmulatorFrameDFUTransport``) and
/// restarts into it; `frame.FIRMWARE_VERSION` is then the version string found in the image.
extension FrameEmulator {
    /// The bootloader, while the Frame is in it (advertising "Frame Update" with service 0xFE59).
    public var bootloader: EmulatedBootloader? { core.dfu.withLock { $0.bootloader } }

    /// The last firmware image a DFU installed (nil until one was).
    public var installedFirmware: Data? { core.dfu.withLock { $0.installedFirmware } }

    /// `frame.FIRMWARE_VERSION`: the configured one until an update installs another.
    public var firmwareVersion: String { core.dfu.withLock { $0.firmwareVersion } }

    /// Messages from the bootloader, oldest first.
    public var bootloaderLog: [String] { core.dfu.withLock { $0.log } }

    /// Restarts the Frame into its bootloader, as `frame.update()` does (a connected host's link
    /// drops); for a Frame that was left there by an earlier, unfinished update.
    public func enterBootloader() async {
        await core.stop()
        core.dfu.withLock { $0.bootloader = EmulatedBootloader(settings: core.bootloaderSettings) }
        core.sink.state.withLock { state in
            state.power = .bootloader
            state.enteredBootloader = true
        }
        core.linkDropped(reason: "Frame restarted into its bootloader (Frame Update)")
    }

    /// Restarts out of the bootloader into the application it has, without an update (the
    /// bootloader's inactivity timeout, or switching the Frame off and on).
    public func leaveBootloader() async throws {
        guard closeBootloader(reason: "Frame restarted") else { return }
        try await core.start(cold: true)
    }

    /// Drops the DFU link once the bootloader holds `bytes` firmware bytes (once).
    public func disconnectBootloader(atFirmwareByte bytes: Int) {
        core.dfu.withLock { $0.disconnectAt = bytes }
    }

    /// Ends the bootloader (and its link); false if the Frame was not in it.
    @discardableResult
    func closeBootloader(reason: String) -> Bool {
        let (was, client) = core.dfu.withLock { state -> (Bool, AsyncStream<DFUTransportEvent>.Continuation?) in
            let was = state.bootloader != nil
            state.bootloader = nil
            return (was, state.dropClient())
        }
        client?.yield(.disconnected(reason: reason))
        return was
    }

    // MARK: The DFU link (for EmulatorFrameDFUTransport)

    func attachDFU(_ continuation: AsyncStream<DFUTransportEvent>.Continuation) {
        core.dfu.withLock { $0.client = continuation }
    }

    func connectDFU(maximumWriteLength: Int) throws {
        let client = try core.dfu.withLock { state -> AsyncStream<DFUTransportEvent>.Continuation? in
            guard state.bootloader != nil else {
                throw DFUError.bootloaderNotFound("no \(Self.bootloaderName) is advertising (the virtual Frame runs its application)")
            }
            guard !state.connected else { return nil }
            state.connected = true
            return state.client
        }
        client?.yield(.connected(maximumWriteLength: maximumWriteLength))
    }

    func disconnectDFU() {
        let client = core.dfu.withLock { $0.dropClient() }
        client?.yield(.disconnected(reason: "disconnected by the host"))
    }

    func dfuControl(_ bytes: Data) async throws {
        let (outcome, client) = try core.dfu.withLock { state in
            guard state.connected, var bootloader = state.bootloader else { throw DFUError.disconnected("not connected to \(Self.bootloaderName)") }
            let outcome = bootloader.control(bytes)
            state.bootloader = bootloader
            return (outcome, state.client)
        }
        if let image = outcome.activated {
            // The restart is modelled as instant: Frame runs the new firmware by the time the host
            // hears that the last object executed, so a host reconnecting at once finds it.
            await activate(image)
        }
        for notification in outcome.notifications { client?.yield(.notification(notification)) }
        if outcome.activated != nil {
            let dropped = core.dfu.withLock { $0.dropClient() }
            dropped?.yield(.disconnected(reason: "the bootloader restarted Frame into the new firmware"))
        }
    }

    func dfuPacket(_ bytes: Data) throws {
        let (outcome, client, dropped) = try core.dfu.withLock { state in
            guard state.connected, var bootloader = state.bootloader else { throw DFUError.disconnected("not connected to \(Self.bootloaderName)") }
            let outcome = bootloader.packet(bytes)
            state.bootloader = bootloader
            var dropped: AsyncStream<DFUTransportEvent>.Continuation?
            if let limit = state.disconnectAt, bootloader.firmware.count >= limit {
                state.disconnectAt = nil
                dropped = state.dropClient()
            }
            return (outcome, state.client, dropped)
        }
        for notification in outcome.notifications { client?.yield(.notification(notification)) }
        dropped?.yield(.disconnected(reason: "fault injected"))
    }

    /// The bootloader verified a whole image: Frame restarts into it, reporting the version the image holds.
    private func activate(_ image: Data) async {
        let version = DFUPackage.embeddedVersion(in: image)
        core.dfu.withLock { state in
            state.installedFirmware = image
            if let version {
                state.firmwareVersion = version
            } else {
                state.log.append("the new firmware image holds no version string; frame.FIRMWARE_VERSION stays \(state.firmwareVersion)")
            }
        }
        if let version { cframe_set_firmware_version(core.device.pointer, version) }
        core.dfu.withLock { $0.bootloader = nil } // no longer advertising; the link drops once the answer is sent
        try? await core.start(cold: true)
    }

    static let bootloaderName = "Frame Update"
}

/// Connects a Secure DFU client to a virtual Frame in its bootloader, as Bluetooth would connect it
/// to a real Frame advertising "Frame Update".
public final class EmulatorFrameDFUTransport: DFUTransport {
    public let events: AsyncStream<DFUTransportEvent>
    private let continuation: AsyncStream<DFUTransportEvent>.Continuation
    public let emulator: FrameEmulator
    /// The bootloader's write length (ATT MTU 247 − 3).
    public let maximumWriteLength: Int

    public init(emulator: FrameEmulator, maximumWriteLength: Int = 244) {
        self.emulator = emulator
        self.maximumWriteLength = maximumWriteLength
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    deinit {
        continuation.finish()
    }

    public func bootloaderInReach() async -> Bool {
        emulator.bootloader != nil
    }

    public func connect() async throws {
        emulator.attachDFU(continuation)
        try emulator.connectDFU(maximumWriteLength: maximumWriteLength)
    }

    public func writeControl(_ bytes: Data) async throws {
        try await emulator.dfuControl(bytes)
    }

    public func writePacket(_ bytes: Data) async throws {
        try emulator.dfuPacket(bytes)
    }

    public func disconnect() async {
        emulator.disconnectDFU()
    }
}
