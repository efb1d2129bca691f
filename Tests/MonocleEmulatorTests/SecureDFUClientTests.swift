import Crypto
import Foundation
import MonocleEmulator
import SecureDFU
import Synchronization
import Testing

/// The test firmware package, made by Nordic's own packager (`scripts/dfu/make-fixture.py monocle`).
enum DFUFixture {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../SecureDFUTests/Fixtures/dfu").standardized
    static var zip: URL { directory.appendingPathComponent("monocle-firmware-test.zip") }
    static func package() throws -> DFUPackage { try DFUPackage(contentsOf: zip) }
    static func publicKey() throws -> P256.Signing.PublicKey {
        try P256.Signing.PublicKey(pemRepresentation: String(contentsOf: directory.appendingPathComponent("test-key-public.pem"), encoding: .utf8))
    }
}

/// A DFU link straight to an emulated bootloader (no interpreter), with faults.
final class BootloaderLink: DFUTransport {
    struct State {
        var bootloader: EmulatedBootloader
        var connected = false
        var connections = 0
        var requests: [SecureDFU.Request] = []
        var packetBytes = 0
        var packets = 0
        var corrupt: Set<Int> = []
        var corruptEvery = false
        var dropAtByte: Int?
        var activated: Data?
    }

    let events: AsyncStream<DFUTransportEvent>
    private let continuation: AsyncStream<DFUTransportEvent>.Continuation
    let state: Mutex<State>
    let writeLength: Int

    init(settings: EmulatedBootloader.Settings = .init(), writeLength: Int = 244) {
        state = Mutex(State(bootloader: EmulatedBootloader(settings: settings)))
        self.writeLength = writeLength
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    func bootloaderInReach() async -> Bool { state.withLock { $0.activated == nil } }

    func connect() async throws {
        try state.withLock { state in
            guard state.activated == nil else { throw DFUError.bootloaderNotFound("the glasses left their bootloader") }
            state.connected = true
            state.connections += 1
        }
        continuation.yield(.connected(maximumWriteLength: writeLength))
    }

    func writeControl(_ bytes: Data) async throws {
        let outcome = try state.withLock { state -> EmulatedBootloader.Outcome in
            guard state.connected else { throw DFUError.disconnected("not connected") }
            if let request = SecureDFU.Request(bytes: bytes) { state.requests.append(request) }
            let outcome = state.bootloader.control(bytes)
            if let image = outcome.activated {
                state.activated = image
                state.connected = false
            }
            return outcome
        }
        for notification in outcome.notifications { continuation.yield(.notification(notification)) }
        if outcome.activated != nil { continuation.yield(.disconnected(reason: "restarting into the new firmware")) }
    }

    func writePacket(_ bytes: Data) async throws {
        #expect(bytes.count <= writeLength)
        let (outcome, dropped) = try state.withLock { state -> (EmulatedBootloader.Outcome, Bool) in
            guard state.connected else { throw DFUError.disconnected("not connected") }
            state.packets += 1
            state.packetBytes += bytes.count
            var bytes = bytes
            if state.corruptEvery || state.corrupt.remove(state.packets) != nil { bytes[bytes.startIndex] ^= 0x5A }
            let outcome = state.bootloader.packet(bytes)
            if let limit = state.dropAtByte, state.bootloader.firmware.count >= limit {
                state.dropAtByte = nil
                state.connected = false
                return (outcome, true)
            }
            return (outcome, false)
        }
        for notification in outcome.notifications { continuation.yield(.notification(notification)) }
        if dropped { continuation.yield(.disconnected(reason: "out of reach")) }
    }

    func disconnect() async {
        let was = state.withLock { state in
            defer { state.connected = false }
            return state.connected
        }
        if was { continuation.yield(.disconnected(reason: "disconnected by Sibyl")) }
    }

    var dataObjectsCreated: Int {
        state.withLock { $0.requests.filter { if case .create(.data, _) = $0 { true } else { false } }.count }
    }
}

/// Records progress reports.
final class ProgressLog: Sendable {
    let reports = Mutex<[DFUProgress]>([])
    var record: @Sendable (DFUProgress) async -> Void { { report in self.reports.withLock { $0.append(report) } } }
}

@Suite(.timeLimit(.minutes(10))) struct SecureDFUClientTests {
    static func trusting() throws -> EmulatedBootloader.Settings {
        var settings = EmulatedBootloader.Settings()
        settings.trustedKey = try DFUFixture.publicKey()
        return settings
    }

    static func fast() -> SecureDFUClient.Options {
        var options = SecureDFUClient.Options()
        options.reconnectDelay = .milliseconds(10)
        options.responseTimeout = .seconds(5)
        return options
    }

    @Test(arguments: [20, 244])
    func nrfutilsPackageInstallsAtEveryLinkLength(writeLength: Int) async throws {
        let package = try DFUFixture.package()
        let link = BootloaderLink(settings: try Self.trusting(), writeLength: writeLength)
        let log = ProgressLog()
        try await SecureDFUClient(transport: link, options: Self.fast()).update(package, progress: log.record)
        #expect(link.state.withLock { $0.activated } == package.firmware)
        #expect(link.dataObjectsCreated == 5) // 18,000 bytes in 4,096-byte objects
        #expect(link.state.withLock { $0.packetBytes } == package.firmware.count + package.initPacket.count)
        if writeLength == 244 {
            // The figures in the closing note: one init packet, 4 × 17 + 7 firmware packets; receipts,
            // two selects, and a create, checksum and execute for each of the 6 objects.
            #expect(link.state.withLock { $0.packets } == 76)
            #expect(link.state.withLock { $0.requests.count } == 21)
        }
        let reports = log.reports.withLock { $0 }
        #expect(reports.last?.phase == .done)
        let sent = reports.map(\.bytesSent)
        #expect(sent == sent.sorted())
        #expect(reports.contains { $0.phase == .sendingFirmware && $0.bytesSent == 8_192 })
    }

    @Test func aDamagedPacketIsCaughtAndItsObjectSentAgain() async throws {
        let package = try DFUFixture.package()
        let link = BootloaderLink(settings: try Self.trusting())
        // Packet 1 is the init packet; 30 and 75 fall in two different firmware objects.
        link.state.withLock { $0.corrupt = [30, 75] }
        try await SecureDFUClient(transport: link, options: Self.fast()).update(package)
        #expect(link.state.withLock { $0.activated } == package.firmware)
        #expect(link.dataObjectsCreated == 7)
        #expect(link.state.withLock { $0.connections } == 1)
    }

    @Test(arguments: [9_000, 8_192, 18_000])
    func aLostLinkResumesWhereTheBootloaderStands(dropAt byte: Int) async throws {
        let package = try DFUFixture.package()
        let link = BootloaderLink(settings: try Self.trusting())
        link.state.withLock { $0.dropAtByte = byte }
        let log = ProgressLog()
        try await SecureDFUClient(transport: link, options: Self.fast()).update(package, progress: log.record)
        #expect(link.state.withLock { $0.activated } == package.firmware)
        #expect(link.state.withLock { $0.connections } == 2)
        // Only the object the link dropped in is finished; nothing executed is sent again.
        #expect(link.state.withLock { $0.packetBytes } == package.firmware.count + package.initPacket.count)
        #expect(log.reports.withLock { $0.contains { if case .resuming(let from) = $0.phase { from >= byte && from < byte + 244 } else { false } } })
        #expect(log.reports.withLock { $0.contains { $0.phase == .connecting(attempt: 2) } })
    }

    @Test func refusalsSayWhyInWords() async throws {
        let package = try DFUFixture.package()
        let key = P256.Signing.PrivateKey()
        var settings = EmulatedBootloader.Settings()
        settings.trustedKey = key.publicKey

        // Signed by someone else.
        await #expect(throws: DFUError.rejected(request: "execute the object", reason: "the image or its signature does not verify")) {
            try await SecureDFUClient(transport: BootloaderLink(settings: settings), options: Self.fast()).update(package)
        }
        // Not signed at all.
        var info = package.info
        let unsigned = try DFUPackage(initPacket: try info.serialized(), firmware: package.firmware)
        await #expect(throws: DFUError.rejected(request: "execute the object", reason: "the package is not signed")) {
            try await SecureDFUClient(transport: BootloaderLink(settings: settings), options: Self.fast()).update(unsigned)
        }
        // For other hardware, or another SoftDevice, though properly signed.
        info.hardwareVersion = 51
        let otherHardware = try DFUPackage(initPacket: try info.serialized(signingWith: key), firmware: package.firmware)
        await #expect(throws: DFUError.rejected(request: "execute the object", reason: "the firmware is for other hardware")) {
            try await SecureDFUClient(transport: BootloaderLink(settings: settings), options: Self.fast()).update(otherHardware)
        }
        info.hardwareVersion = 52
        info.softDeviceRequired = [0x0101]
        let otherSoftDevice = try DFUPackage(initPacket: try info.serialized(signingWith: key), firmware: package.firmware)
        let link = BootloaderLink(settings: settings)
        await #expect(throws: DFUError.rejected(request: "execute the object", reason: "the firmware needs another SoftDevice")) {
            try await SecureDFUClient(transport: link, options: Self.fast()).update(otherSoftDevice)
        }
        // Nothing of the image was sent to a bootloader that refused its init packet.
        #expect(link.dataObjectsCreated == 0)
        #expect(DFUError.rejected(request: "execute the object", reason: "the package is not signed").localizedDescription
            == "The bootloader refused to execute the object: the package is not signed.")
    }

    @Test func aLinkThatAlwaysDamagesDataIsGivenUpOn() async throws {
        let link = BootloaderLink(settings: try Self.trusting())
        link.state.withLock { $0.corruptEvery = true }
        var options = Self.fast()
        options.objectAttempts = 2
        options.reconnects = 1
        await #expect(throws: DFUError.gaveUp(after: 2, lastError: "The init packet kept arriving damaged (CRC-32 mismatch).")) {
            try await SecureDFUClient(transport: link, options: options).update(try DFUFixture.package())
        }
        #expect(link.state.withLock { $0.activated } == nil)
    }

    @Test func theBootloaderChecksTheWholeImageBeforeActivatingIt() throws {
        let package = try DFUFixture.package()
        var bootloader = EmulatedBootloader(settings: try Self.trusting())
        func control(_ request: SecureDFU.Request) -> SecureDFU.Response? {
            bootloader.control(request.bytes).notifications.last.flatMap(SecureDFU.Response.init(bytes:))
        }
        #expect(control(.create(.data, size: 4_096))?.result == .operationNotPermitted) // no init packet yet
        #expect(control(.create(.command, size: UInt32(package.initPacket.count)))?.result == .success)
        _ = bootloader.packet(package.initPacket)
        #expect(control(.execute)?.result == .success)
        #expect(control(.create(.data, size: 8_192))?.result == .insufficientResources) // larger than an object
        var image = package.firmware
        image[17_000] ^= 0xFF // damaged in a way the per-object CRC can't see: the sender computed it over these bytes
        var offset = 0
        var activated: Data?
        while offset < image.count {
            let end = min(offset + 4_096, image.count)
            #expect(control(.create(.data, size: UInt32(end - offset)))?.result == .success)
            _ = bootloader.packet(image[offset..<end])
            let outcome = bootloader.control(SecureDFU.Request.execute.bytes)
            activated = outcome.activated
            if end == image.count {
                #expect(SecureDFU.Response(bytes: outcome.notifications[0])?.extendedError == .verificationFailed)
            }
            offset = end
        }
        #expect(activated == nil)
        #expect(bootloader.executed == 0) // the bad image is dropped
    }
}
