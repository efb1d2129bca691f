import Foundation
import Glasses
import SecureDFU
import SibylCore
import Testing

/// A bootloader the glasses restart into: Secure DFU against `EmulatedBootloader`; a verified image
/// becomes the glasses' firmware and the bootloader restarts them into it.
actor ScriptedBootloader: DFUTransport {
    nonisolated let events: AsyncStream<DFUTransportEvent>
    private nonisolated let continuation: AsyncStream<DFUTransportEvent>.Continuation
    private var bootloader = EmulatedBootloader()
    private var connected = false
    private let firmware: ScriptedFirmware
    private let version: String
    /// Whether the glasses wait in the bootloader now.
    private(set) var waiting: Bool

    /// Installs as `version` into `firmware`; `waiting` when the glasses start in the bootloader.
    init(firmware: ScriptedFirmware, installs version: String, waiting: Bool = false) {
        self.firmware = firmware
        self.version = version
        self.waiting = waiting
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    func restarted() {
        waiting = true
    }

    func bootloaderInReach() async -> Bool { waiting }

    func connect() async throws {
        guard waiting else { throw DFUError.bootloaderNotFound("no TestBoot is advertising") }
        connected = true
        continuation.yield(.connected(maximumWriteLength: 100))
    }

    func writeControl(_ bytes: Data) async throws {
        guard connected else { throw DFUError.disconnected("not connected") }
        let outcome = bootloader.control(bytes)
        for notification in outcome.notifications { continuation.yield(.notification(notification)) }
        if outcome.activated != nil {
            firmware.current = version
            waiting = false
            connected = false
            continuation.yield(.disconnected(reason: "the bootloader restarted the glasses"))
        }
    }

    func writePacket(_ bytes: Data) async throws {
        guard connected else { throw DFUError.disconnected("not connected") }
        for notification in bootloader.packet(bytes).notifications { continuation.yield(.notification(notification)) }
    }

    func disconnect() async {
        guard connected else { return }
        connected = false
        continuation.yield(.disconnected(reason: "disconnected by the phone"))
    }
}

/// The firmware hand-off both kinds share: restarting into the bootloader, the install, the way back.
@Suite(.timeLimit(.minutes(10)))
struct GlassesFirmwareTests {
    /// An unsigned package the emulated bootloader takes, holding `version`.
    static func package(version: String, hardware: UInt32 = 52) throws -> DFUPackage {
        let image = Data((0..<3_000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        var info = InitPacket()
        info.hardwareVersion = hardware
        info.softDeviceRequired = [0x0124]
        info.applicationSize = UInt32(image.count)
        info.hashType = .sha256
        info.hash = InitPacket.sha256(of: image)
        return try DFUPackage(initPacket: try info.serialized(), firmware: image, version: version)
    }

    /// Glasses on v1 with a package for v2, their bootloader scripted.
    static func updating(
        hardware: UInt32 = 52, waitingInBootloader: Bool = false,
        _ body: (ScriptedBootloader, inout EventReader) async throws -> Void
    ) async throws {
        let firmware = ScriptedFirmware("v1")
        let transport = ScriptedTransport(failingConnects: waitingInBootloader ? 1 : 0)
        let bootloader = ScriptedBootloader(firmware: firmware, installs: "v2", waiting: waitingInBootloader)
        let driver = RestartingDriver(ScriptedDriver(transport: transport, firmware: firmware), bootloader: bootloader)
        var options = GlassesConnection.Options.quick
        options.firmwarePackage = try package(version: "v2", hardware: hardware)
        options.bootloader = bootloader
        options.dfu.reconnectDelay = .milliseconds(1)
        let connection = GlassesConnection(transport: transport, driver: driver, options: options)
        try await connection.whileRunning { events in try await body(bootloader, &events) }
    }

    @Test func olderFirmwareIsReplacedAndTheAppComesUpOnTheNewOne() async throws {
        try await Self.updating { _, events in
            let info = try await events.running()
            #expect(info.firmware == "v2")
            let progress = events.states.compactMap { if case .updatingFirmware(let fraction) = $0 { fraction } else { nil } }
            #expect(progress.first == 0)
            #expect(progress.last == 1)
            #expect(progress == progress.sorted())
            #expect(events.notices.contains("installing firmware v2: restarting the glasses into their bootloader"))
            #expect(events.notices.contains("firmware v2 installed (3000 bytes); the glasses restart into it"))
            // checkingFirmware → updatingFirmware … → disconnected (restarting) → … → running.
            let restart = try #require(events.states.firstIndex(of: .disconnected(reason: "restarting into firmware v2")))
            #expect(events.states.firstIndex(of: .updatingFirmware(progress: 1))! < restart)
            #expect(!events.notices.contains { $0.hasPrefix("giving up") })
        }
    }

    @Test func glassesWaitingInTheirBootloaderAreUpdatedFirst() async throws {
        try await Self.updating(waitingInBootloader: true) { _, events in
            let info = try await events.running()
            #expect(info.firmware == "v2")
            #expect(events.notices.first == "the glasses are in their bootloader (TestBoot)")
            #expect(!events.states.contains(.preparing(.checkingFirmware)) || events.states.firstIndex(of: .preparing(.checkingFirmware))! > events.states.firstIndex(of: .updatingFirmware(progress: 0))!)
        }
    }

    @Test func aPackageTheBootloaderRefusesLeavesTheOldFirmwareAndTheAppRuns() async throws {
        try await Self.updating(hardware: 53) { _, events in
            let failure = try await events.next("the refusal") { event -> String? in
                if case .updateFailed(let reason) = event { reason } else { nil }
            }
            #expect(failure.contains("other hardware"), "\(failure)")
            // The next link finds the version already tried, and brings the app up on the old firmware.
            let info = try await events.running()
            #expect(info.firmware == "v1")
            #expect(events.notices.contains("the glasses report firmware v1; v2 was tried already, so it is not installed again"))
        }
    }
}

/// A driver whose glasses, when asked to restart into their bootloader, are then found there.
actor RestartingDriver: GlassesDriver {
    nonisolated let kind: GlassesKind
    nonisolated let bootloaderName: String
    nonisolated let expectedFirmware: String?
    private let wrapped: ScriptedDriver
    private let bootloader: ScriptedBootloader

    init(_ wrapped: ScriptedDriver, bootloader: ScriptedBootloader) {
        self.wrapped = wrapped
        self.bootloader = bootloader
        kind = wrapped.kind
        bootloaderName = wrapped.bootloaderName
        expectedFirmware = wrapped.expectedFirmware
    }

    func prepare(_ link: GlassesLink) async throws -> String? { try await wrapped.prepare(link) }

    func restartIntoBootloader(_ link: GlassesLink, timeout: Duration) async throws {
        await bootloader.restarted()
        try await wrapped.restartIntoBootloader(link, timeout: timeout)
    }

    func startApp(_ link: GlassesLink, firmware: String?) async throws -> GlassesDeviceInfo? { try await wrapped.startApp(link, firmware: firmware) }
    func received(_ bytes: Data, on channel: GlassesChannel, link: GlassesLink) async { await wrapped.received(bytes, on: channel, link: link) }
    func linkLost(_ reason: String) async { await wrapped.linkLost(reason) }
    func show(_ text: String, isError: Bool, link: GlassesLink) async throws { try await wrapped.show(text, isError: isError, link: link) }
    func showThinking(_ link: GlassesLink) async { await wrapped.showThinking(link) }
}
