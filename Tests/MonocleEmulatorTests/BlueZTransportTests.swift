import Foundation
import Monocle
import MonocleBluetooth
import MonocleEmulator
import Testing
import SibylCore

/// The BlueZ transport on a private D-Bus bus with python-dbusmock's BlueZ, bridged to the virtual glasses.
@Suite(.serialized, .enabled(if: TestGlasses.available && BlueZMock.available, "dbus-daemon, python3-dbusmock or the MicroPython interpreter is missing"))
struct BlueZTransportTests {
    @Test func scanFindsMonoclesNearestFirst() async throws {
        let mock = try await BlueZMock()
        defer { mock.stop() }
        try await mock.addMonocle(address: "AA:BB:CC:DD:EE:01", rssi: -80)
        try await mock.addMonocle(address: "AA:BB:CC:DD:EE:02", rssi: -50)
        _ = try await mock.bus.call("org.bluez", "/org/bluez", "org.bluez.Mock", "AddDevice", [.string("hci0"), .string("11:22:33:44:55:66"), .string("headphones")])
        let found = try await BlueZScanner(bus: mock.bus).scan(for: .milliseconds(600))
        #expect(found.map(\.address) == ["AA:BB:CC:DD:EE:02", "AA:BB:CC:DD:EE:01"])
        #expect(found.first?.rssi == -50)
    }

    @Test func theControllerRunsSibylsAppOverBlueZ() async throws {
        let mock = try await BlueZMock()
        defer { mock.stop() }
        let device = try await mock.addMonocle(address: "AA:BB:CC:DD:EE:02", rssi: -50)
        try await TestGlasses.with { glasses in
            let bridge = try await mock.bridge(device: device, to: glasses)
            defer { bridge.cancel() }
            let transport = BlueZTransport(bus: mock.bus, address: "aa:bb:cc:dd:ee:02")
            let controller = MonocleController(transport: transport, app: try DeviceApp.sibyl(), options: ControllerTests.fastOptions())
            let observer = ControllerTests.Observer()
            let following = observer.follow(controller)
            let serving = Task { await controller.run() }
            let info = try await observer.running(timeout: .seconds(300))
            #expect(info.uploaded)
            #expect(info.maximumWriteLength == 253)
            _ = try await glasses.waitForScreen { $0.lines.contains { $0.lowercased().contains("tap") } }
            try await controller.show("Über BlueZ angekommen.")
            _ = try await glasses.waitForScreen { $0.lines.joined(separator: " ").contains("Über BlueZ angekommen.") }
            // Out of range and back: the controller reconnects and finds the app in place.
            await glasses.disconnect()
            #expect(try await !observer.running(2, timeout: .seconds(300)).uploaded)
            await controller.stop()
            serving.cancel()
            following.cancel()
        }
    }

    @Test func firmwareIsInstalledThroughDfuTargOverBlueZ() async throws {
        let mock = try await BlueZMock()
        defer { mock.stop() }
        let device = try await mock.addMonocle(address: "AA:BB:CC:DD:EE:02", rssi: -50)
        let package = try DFUFixture.package()
        try await TestGlasses.with(configure: FirmwareUpdateTests.configure) { glasses in
            let bridge = try await mock.bridge(device: device, to: glasses)
            let bootloaderBridge = try await mock.bridgeBootloader(address: "AA:BB:CC:DD:EE:03", to: glasses)
            defer {
                bridge.cancel()
                bootloaderBridge.cancel()
            }
            let dfu = BlueZDFUTransport(bus: mock.bus)
            #expect(await !dfu.bootloaderInReach())
            var options = ControllerTests.fastOptions()
            options.firmwarePackage = package
            options.bootloader = dfu
            let controller = MonocleController(transport: BlueZTransport(bus: mock.bus, address: "aa:bb:cc:dd:ee:02"), app: try DeviceApp.sibyl(), options: options)
            let observer = ControllerTests.Observer()
            let following = observer.follow(controller)
            let serving = Task { await controller.run() }
            let info = try await observer.running(timeout: .seconds(90))
            #expect(info.firmware == "v23.300.1200")
            #expect(await glasses.installedFirmware == package.firmware)
            #expect(observer.states.withLock { $0.contains { if case .updatingFirmware(1) = $0 { true } else { false } } })
            await controller.stop()
            serving.cancel()
            following.cancel()
        }
    }
}

/// `sibyl monocle scan | pair | unpair` against the mock BlueZ.
@Suite(.serialized, .enabled(if: BlueZMock.available, "dbus-daemon or python3-dbusmock is missing"))
struct BluetoothCLITests {
    func sibyl(_ arguments: [String], bus: String, home: URL) async throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("sibyl")
        process.arguments = arguments
        process.environment = ["SIBYL_HOME": home.path, "HOME": home.path, "NO_COLOR": "1", "DBUS_SYSTEM_BUS_ADDRESS": bus, "PATH": "/usr/bin:/bin"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = await PipeDrain.readToEnd(output.fileHandleForReading)
        await process.exited()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func scanPairAndUnpair() async throws {
        let mock = try await BlueZMock()
        defer { mock.stop() }
        try await mock.addMonocle(address: "AA:BB:CC:DD:EE:01", rssi: -80)
        try await mock.addMonocle(address: "AA:BB:CC:DD:EE:02", rssi: -50)
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-pair-\(UUID().uuidString.prefix(8))", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: home) }

        let scan = try await sibyl(["monocle", "scan", "--seconds", "1"], bus: mock.address, home: home)
        #expect(scan.status == 0, "\(scan.output)")
        let lines = scan.output.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("AA:BB:CC:DD:EE:02  -50 dBm") == true, "\(scan.output)")
        #expect(lines.contains { $0.hasPrefix("AA:BB:CC:DD:EE:01  -80 dBm") })

        let pair = try await sibyl(["monocle", "pair", "--seconds", "1"], bus: mock.address, home: home)
        #expect(pair.status == 0, "\(pair.output)")
        #expect(pair.output.contains("Paired with the Monocle AA:BB:CC:DD:EE:02"))
        #expect(try await sibyl(["config", "get", "glasses.device"], bus: mock.address, home: home).output.contains("AA:BB:CC:DD:EE:02"))
        #expect(try await sibyl(["monocle", "scan", "--seconds", "1"], bus: mock.address, home: home).output.contains("-50 dBm  monocle  (paired)"))

        let unpair = try await sibyl(["monocle", "unpair"], bus: mock.address, home: home)
        #expect(unpair.output.contains("Forgot the Monocle AA:BB:CC:DD:EE:02"))
        let connect = try await sibyl(["monocle", "connect"], bus: mock.address, home: home)
        #expect(connect.status == 1)
        #expect(connect.output.contains("sibyl monocle pair"))
    }

    @Test func withNobodyCloseEnoughPairingSaysWhatToDo() async throws {
        let mock = try await BlueZMock()
        defer { mock.stop() }
        try await mock.addMonocle(address: "AA:BB:CC:DD:EE:01", rssi: -80)
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-pair-\(UUID().uuidString.prefix(8))", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let pair = try await sibyl(["monocle", "pair", "--seconds", "1"], bus: mock.address, home: home)
        #expect(pair.status == 1)
        #expect(pair.output.contains("No Monocle came close enough"))
    }

    @Test func glassesPairTakesTheNearestOfEitherKindAndMonoclePairOnlyAMonocle() async throws {
        let mock = try await BlueZMock()
        defer { mock.stop() }
        try await mock.addMonocle(address: "AA:BB:CC:DD:EE:03", rssi: -55)
        try await mock.addFrame(address: "F2:3C:61:D4:08:5B", rssi: -40)
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-pair-\(UUID().uuidString.prefix(8))", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: home) }

        let glasses = try await sibyl(["glasses", "pair", "--seconds", "1"], bus: mock.address, home: home)
        #expect(glasses.status == 0, "\(glasses.output)")
        #expect(glasses.output.contains("Hold your Monocle or Frame close"), "\(glasses.output)")
        #expect(glasses.output.contains("Paired with the Frame F2:3C:61:D4:08:5B. Connect with: sibyl glasses connect"), "\(glasses.output)")
        #expect(try await sibyl(["config", "get", "glasses.kind"], bus: mock.address, home: home).output.contains("frame"))

        // The Frame is nearer, but `monocle pair` looks for a Monocle only.
        let monocle = try await sibyl(["monocle", "pair", "--seconds", "1"], bus: mock.address, home: home)
        #expect(monocle.status == 0, "\(monocle.output)")
        #expect(monocle.output.contains("Paired with the Monocle AA:BB:CC:DD:EE:03. Connect with: sibyl monocle connect"), "\(monocle.output)")
        #expect(try await sibyl(["config", "get", "glasses.kind"], bus: mock.address, home: home).output.contains("monocle"))
        #expect(try await sibyl(["config", "get", "glasses.device"], bus: mock.address, home: home).output.contains("AA:BB:CC:DD:EE:03"))
    }
}
