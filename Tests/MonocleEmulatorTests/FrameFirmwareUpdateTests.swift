import Crypto
import Foundation
import FrameEmulator
import FrameGlasses
import FrameProtocol
import Glasses
import GlassesBluetooth
import Monocle
import SecureDFU
import SibylTestSupport
import Synchronization
import Testing

/// Frame's test firmware package (scripts/dfu/make-fixture.py frame): nrfutil's, hardware 52,
/// SoftDevice 0x0123 (S140 7.3.0), 14 000 bytes holding "v25.120.1500", signed with a test key.
enum FrameDFUFixture {
    static var zip: URL { DFUFixture.directory.appendingPathComponent("frame-firmware-test.zip") }
    static let version = "v25.120.1500"
    static let oldVersion = "v25.080.0838"

    static func package() throws -> DFUPackage { try DFUPackage(contentsOf: zip) }

    static func publicKeyPEM() throws -> String {
        try String(contentsOf: DFUFixture.directory.appendingPathComponent("frame-test-key-public.pem"), encoding: .utf8)
    }

    /// A virtual Frame on the old firmware whose bootloader trusts the test key.
    static func configuration() throws -> FrameEmulatorConfiguration {
        var configuration = FrameEmulatorConfiguration()
        configuration.firmwareVersion = oldVersion
        try configuration.bootloader.trust(publicKeyPEM: publicKeyPEM())
        return configuration
    }

    /// The same image with its init packet signed by a key the bootloader does not trust.
    static func signedByAStranger() throws -> DFUPackage {
        let package = try package()
        let initPacket = try package.info.serialized(signingWith: P256.Signing.PrivateKey())
        return try DFUPackage(initPacket: initPacket, firmware: package.firmware)
    }
}

/// Frame firmware updates end to end: the connection sees an older `frame.FIRMWARE_VERSION`, runs
/// `frame.update()`, the virtual Frame restarts into its bootloader ("Frame Update"), the package goes
/// over Secure DFU, and Frame boots the new firmware, where Sibyl's app is brought up.
@Suite(.timeLimit(.minutes(10))) struct FrameFirmwareUpdateTests {
    typealias Observer = ConnectionObserver

    /// A virtual Frame (prepared by `setUp` once powered on) and a connection that holds `package`.
    static func updating(
        _ package: DFUPackage, attempts: Int = 3, setUp: (FrameEmulator) async throws -> Void = { _ in },
        _ body: (FrameEmulator, EmulatorFrameTransport, Observer) async throws -> Void
    ) async throws {
        let flash = FileManager.default.temporaryDirectory.appending(path: "sibyl-frame-dfu-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: flash) }
        let emulator = try FrameEmulator(configuration: FrameDFUFixture.configuration(), flash: flash)
        try await emulator.powerOn()
        try await setUp(emulator)
        var options = GlassesConnection.Options.fast
        options.firmwarePackage = package
        options.bootloader = EmulatorFrameDFUTransport(emulator: emulator)
        options.firmwareAttempts = attempts
        options.dfu.findTimeout = .seconds(10)
        let transport = EmulatorFrameTransport(emulator: emulator)
        let connection = GlassesConnection(transport: transport, driver: FrameDriver(options: .fast), options: options)
        var failure: (any Error)?
        do { try await connection.serve { observer in try await body(emulator, transport, observer) } } catch { failure = error }
        await emulator.powerOff()
        if let failure { throw failure }
    }

    static func failures(_ observer: Observer) -> [String] {
        observer.failures
    }

    @Test func anOlderFrameIsUpdatedAndTheAppRunsOnTheNewFirmware() async throws {
        let package = try FrameDFUFixture.package()
        #expect(package.version == FrameDFUFixture.version)
        #expect(package.info.softDeviceRequired == [0x0123])
        #expect(package.info.hardwareVersion == 52)
        try await Self.updating(package) { emulator, transport, observer in
            let info = try await observer.running()
            #expect(info.firmware == FrameDFUFixture.version)
            #expect(emulator.enteredBootloader)
            #expect(emulator.powerState == .running)
            #expect(emulator.bootloader == nil)
            #expect(emulator.installedFirmware == package.firmware)
            #expect(emulator.firmwareVersion == FrameDFUFixture.version)

            // checkingFirmware → updatingFirmware 0 … 1 → disconnected → … → running.
            let states = observer.states
            let progress = states.compactMap { if case .updatingFirmware(let p) = $0 { p } else { nil } }
            #expect(progress.first == 0)
            #expect(progress.last == 1)
            #expect(progress.count > 3)
            #expect(progress == progress.sorted())
            let isUpdate: (GlassesPhase) -> Bool = { if case .updatingFirmware = $0 { true } else { false } }
            let checking = try #require(states.firstIndex(of: .preparing(.checkingFirmware)))
            let firstUpdate = try #require(states.firstIndex(where: isUpdate))
            let lastUpdate = try #require(states.lastIndex(where: isUpdate))
            let restart = try #require(states[lastUpdate...].firstIndex { if case .disconnected = $0 { true } else { false } })
            let running = try #require(states.firstIndex { if case .running = $0 { true } else { false } })
            #expect(checking < firstUpdate)
            #expect(lastUpdate < restart)
            #expect(restart < running)
            #expect(observer.notices.contains { $0.contains("installed (14000 bytes)") })
            #expect(Self.failures(observer).isEmpty)
            #expect(!observer.notices.contains { $0.hasPrefix("giving up") }, "the link drops when Frame restarts into its bootloader")

            // A reconnect finds the new firmware: nothing is installed again.
            transport.drop(reason: "walked out of range")
            let second = try await observer.running(2)
            #expect(second.firmware == FrameDFUFixture.version)
            #expect(!second.uploaded)
            #expect(observer.states.filter { $0 == .updatingFirmware(progress: 0) }.count == 1)
        }
    }

    @Test func aDroppedBootloaderLinkResumesWhereItStopped() async throws {
        let package = try FrameDFUFixture.package()
        try await Self.updating(package, setUp: { $0.disconnectBootloader(atFirmwareByte: 6_000) }) { emulator, _, observer in
            let info = try await observer.running()
            #expect(info.firmware == FrameDFUFixture.version)
            #expect(emulator.installedFirmware == package.firmware)
            let notices = observer.notices
            #expect(notices.contains { $0.hasPrefix("the bootloader's link dropped; connecting again") })
            // The bootloader keeps a partial object's bytes: the transfer goes on from the byte it holds.
            let resumed = try #require(notices.first { $0.hasPrefix("resuming the firmware update at byte ") })
            let offset = try #require(Int(resumed.split(separator: " ")[6]))
            #expect((6_000..<6_000 + 244).contains(offset), "\(resumed)")
            #expect(!notices.contains { $0.hasPrefix("giving up") })
            #expect(Self.failures(observer).isEmpty)
        }
    }

    @Test func aPackageSignedWithAnotherKeyIsRefused() async throws {
        let package = try FrameDFUFixture.signedByAStranger()
        try await Self.updating(package, attempts: 1) { emulator, _, observer in
            let failure = try await observer.until("the refusal") { Self.failures(observer).first }
            #expect(failure.contains("signature does not verify"), "\(failure)")
            #expect(emulator.powerState == .bootloader)
            #expect(emulator.installedFirmware == nil)
            #expect(emulator.bootloader?.executed == 0)

            // The bootloader keeps the old application; restarting the Frame boots it.
            try await emulator.leaveBootloader()
            let info = try await observer.running()
            #expect(info.firmware == FrameDFUFixture.oldVersion)
            #expect(emulator.firmwareVersion == FrameDFUFixture.oldVersion)
            #expect(observer.notices.contains { $0.contains("was tried already, so it is not installed again") })
        }
    }

    @Test func aFrameWaitingInItsBootloaderIsUpdatedFirst() async throws {
        let package = try FrameDFUFixture.package()
        try await Self.updating(package, setUp: { await $0.enterBootloader() }) { emulator, _, observer in
            let info = try await observer.running()
            #expect(info.firmware == FrameDFUFixture.version)
            #expect(observer.notices.contains("the glasses are in their bootloader (Frame Update)"))
            let states = observer.states
            let firstUpdate = try #require(states.firstIndex { if case .updatingFirmware = $0 { true } else { false } })
            #expect(states.firstIndex(of: .preparing(.checkingFirmware)).map { $0 > firstUpdate } ?? true)
            #expect(emulator.installedFirmware == package.firmware)
        }
    }

    @Test func anImageWithoutAVersionKeepsTheOldOneAndSaysSo() async throws {
        // The bootloader alone: an unsigned package (a bootloader trusting no key takes it) whose image has no version string.
        let flash = FileManager.default.temporaryDirectory.appending(path: "sibyl-frame-dfu-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: flash) }
        var configuration = FrameEmulatorConfiguration()
        configuration.firmwareVersion = FrameDFUFixture.oldVersion
        let emulator = try FrameEmulator(configuration: configuration, flash: flash)
        try await emulator.powerOn()
        await emulator.enterBootloader()
        let image = Data((0..<5_000).map { UInt8(truncatingIfNeeded: $0 * 31 % 251) })
        var info = InitPacket()
        info.hardwareVersion = 52
        info.softDeviceRequired = [0x0123]
        info.applicationSize = UInt32(image.count)
        info.hashType = .sha256
        info.hash = InitPacket.sha256(of: image)
        let package = try DFUPackage(initPacket: try info.serialized(), firmware: image, version: "v25.200.0000")
        let client = SecureDFUClient(transport: EmulatorFrameDFUTransport(emulator: emulator))
        try await client.update(package) { _ in }
        #expect(emulator.powerState == .running)
        #expect(emulator.installedFirmware == image)
        #expect(emulator.firmwareVersion == FrameDFUFixture.oldVersion)
        #expect(emulator.bootloaderLog.contains { $0.contains("holds no version string") })
        await emulator.powerOff()
    }
}

extension BlueZMock {
    /// A virtual Frame as the radio shows it, bootloader included: while Frame runs, `frameDevice`
    /// ("Frame XX") carries its traffic, and reads disconnected when Frame drops the link or cannot
    /// take one; while Frame is in its bootloader, a device at `bootloaderAddress` advertises
    /// "Frame Update" with the DFU service (0xFE59) and carries Secure DFU to it.
    func bridgeFrameWithBootloader(frameDevice device: String, bootloaderAddress: String, to emulator: FrameEmulator, mtu: Int = 247) async throws -> Task<Void, Never> {
        let (writes, links, stop) = try await traffic(of: device)
        let dfu = EmulatorFrameDFUTransport(emulator: emulator)
        let bootloader = "/org/bluez/hci0/dev_" + bootloaderAddress.replacingOccurrences(of: ":", with: "_")
        let (dfuWrites, dfuLinks, dfuStop) = try await traffic(of: bootloader)
        let notifications = emulator.notifications
        let bus: DBusClient = self.bus
        return serve([
            {
                // The application's device: a link Frame cannot take (off, or in its bootloader) drops at once.
                for await connected in links {
                    if !connected {
                        emulator.disconnect()
                    } else if (try? emulator.connect(mtu: mtu)) == nil {
                        await self.update(device, "org.bluez.Device1", ["Connected": .bool(false)])
                    }
                }
            },
            {
                for await (_, bytes) in writes {
                    // The mock's Connect does not report Connected again for a device it never saw drop
                    // (BlueZ would): a write on a link BlueZ holds up reaches Frame once it runs again.
                    if !emulator.isConnected, emulator.powerState == .running { try? emulator.connect(mtu: mtu) }
                    try? await emulator.write(bytes)
                }
            },
            {
                for await notification in notifications {
                    await self.update("\(device)/service1/char2", "org.bluez.GattCharacteristic1", ["Value": .bytes(notification)])
                }
            },
            {
                // Frame restarting into its bootloader drops its link, and "Frame Update" advertises until it leaves.
                var inBootloader = false
                while !Task.isCancelled {
                    let now = emulator.bootloader != nil
                    if now && !inBootloader {
                        await self.update(device, "org.bluez.Device1", ["Connected": .bool(false)])
                        try? await self.addDfuTarg(address: bootloaderAddress, device: bootloader, name: FrameIdentifiers.bootloaderName)
                    } else if !now && inBootloader {
                        _ = try? await bus.call("org.bluez", "/org/bluez/hci0", "org.bluez.Adapter1", "RemoveDevice", [.objectPath(bootloader)])
                    }
                    inBootloader = now
                    // The radio's scan interval: the mock looks at Frame as a scanning phone would,
                    // every 20 ms (what it simulates; nothing waits on this pause's length).
                    try? await Task.sleep(for: .milliseconds(20))
                }
            },
            {
                for await connected in dfuLinks {
                    if !connected {
                        await dfu.disconnect()
                    } else if (try? await dfu.connect()) == nil {
                        await self.update(bootloader, "org.bluez.Device1", ["Connected": .bool(false)])
                    }
                }
            },
            {
                for await (path, bytes) in dfuWrites {
                    if path.hasSuffix("service1/char1") { try? await dfu.writeControl(bytes) } else { try? await dfu.writePacket(bytes) }
                }
            },
            {
                for await event in dfu.events {
                    switch event {
                    case .notification(let bytes):
                        await self.update("\(bootloader)/service1/char1", "org.bluez.GattCharacteristic1", ["Value": .bytes(bytes)])
                    case .disconnected:
                        await self.update(bootloader, "org.bluez.Device1", ["Connected": .bool(false)])
                    case .connected:
                        break
                    }
                }
            },
        ], stop: {
            stop()
            dfuStop()
        })
    }
}

/// A Frame update over BlueZ: python-dbusmock's BlueZ on a private bus, bridged to the virtual Frame
/// and, while it is in its bootloader, to "Frame Update".
@Suite(.timeLimit(.minutes(10)), .serialized, .enabled(if: BlueZMock.available, "dbus-daemon or python3-dbusmock is missing"))
struct FrameFirmwareUpdateBlueZTests {
    @Test func firmwareIsInstalledThroughFrameUpdateOverBlueZ() async throws {
        try await BlueZMock.with { mock in
            let device = try await mock.addFrame(address: "F2:3C:61:D4:08:5A", rssi: -45)
            let flash = FileManager.default.temporaryDirectory.appending(path: "sibyl-frame-bluez-dfu-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: flash) }
            let emulator = try FrameEmulator(configuration: FrameDFUFixture.configuration(), flash: flash)
            try await emulator.powerOn()
            // The bootloader's link drops early and the client waits before it reconnects: time to look at what BlueZ shows.
            emulator.disconnectBootloader(atFirmwareByte: 4_000)
            let bridge = try await mock.bridgeFrameWithBootloader(frameDevice: device, bootloaderAddress: "F2:3C:61:D4:08:5B", to: emulator)
            try await BlueZMock.whileBridged(bridge) {
                let dfu = BlueZDFUTransport(bus: mock.bus, for: FrameIdentifiers.services, others: [MonocleIdentifiers.services])
                #expect(dfu.bootloaderName == "Frame Update")
                #expect(await !dfu.bootloaderInReach())
                var options = GlassesConnection.Options.fast
                options.firmwarePackage = try FrameDFUFixture.package()
                options.bootloader = dfu
                options.dfu.reconnectDelay = .seconds(1)
                let transport = BlueZTransport(bus: mock.bus, address: "f2:3c:61:d4:08:5a", services: FrameIdentifiers.services)
                let connection = GlassesConnection(transport: transport, driver: FrameDriver(options: .fast), options: options)
                var failure: (any Error)?
                do {
                    try await connection.serve { observer in
                        // While Frame is in its bootloader, BlueZ sees "Frame Update" with the DFU service.
                        // (The mock adds the device first and its services a moment later: it is asked until it shows both.)
                        var advertised: [String: DBusValue]?
                        try await eventually("Frame Update with the DFU service; BlueZ shows \(String(describing: advertised))") {
                            let objects = try await mock.bus.call("org.bluez", "/", "org.freedesktop.DBus.ObjectManager", "GetManagedObjects")
                            advertised = objects.first?.entries?["/org/bluez/hci0/dev_F2_3C_61_D4_08_5B"]?.entries?["org.bluez.Device1"]?.entries
                            return advertised?["UUIDs"]?.strings?.contains(SecureDFU.service) == true
                        }
                        #expect(emulator.powerState == .bootloader)
                        #expect(advertised?["Name"]?.string == "Frame Update")
                        #expect(advertised?["UUIDs"]?.strings?.contains(SecureDFU.service) == true)

                        let info = try await observer.running(timeout: .seconds(300))
                        #expect(info.firmware == FrameDFUFixture.version)
                        #expect(emulator.installedFirmware == options.firmwarePackage?.firmware)
                        #expect(observer.states.contains(.updatingFirmware(progress: 1)))
                        #expect(observer.notices.contains { $0.hasPrefix("resuming the firmware update at byte") })
                        #expect(FrameFirmwareUpdateTests.failures(observer).isEmpty)
                        #expect(!observer.notices.contains { $0.hasPrefix("giving up") }, "Frame runs the new firmware when the host reconnects")

                        // Each kind's DFU takes its own bootloader only, though both offer the DFU service.
                        let other = "/org/bluez/hci0/dev_F2_3C_61_D4_08_5C"
                        try await mock.addDfuTarg(address: "F2:3C:61:D4:08:5C", device: other, name: FrameIdentifiers.bootloaderName)
                        #expect(await BlueZDFUTransport(bus: mock.bus, for: FrameIdentifiers.services, others: [MonocleIdentifiers.services]).bootloaderInReach())
                        #expect(await !BlueZDFUTransport(bus: mock.bus, for: MonocleIdentifiers.services, others: [FrameIdentifiers.services]).bootloaderInReach())
                    }
                } catch {
                    failure = error
                }
                await emulator.powerOff()
                if let failure { throw failure }
            }
        }
    }
}
