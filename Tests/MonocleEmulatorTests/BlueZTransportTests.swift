import FrameProtocol
import Foundation
import Glasses
import GlassesBluetooth
import Monocle
import MonocleEmulator
import SibylCore
import Testing

/// The BlueZ transport on a private D-Bus bus with python-dbusmock's BlueZ, bridged to the virtual glasses.
@Suite(.timeLimit(.minutes(10)), .serialized, .enabled(if: TestGlasses.available && BlueZMock.available, "dbus-daemon, python3-dbusmock or the MicroPython interpreter is missing"))
struct BlueZTransportTests {
    @Test func scanFindsMonoclesNearestFirst() async throws {
        try await BlueZMock.with { mock in
            try await mock.addMonocle(address: "AA:BB:CC:DD:EE:01", rssi: -80)
            try await mock.addMonocle(address: "AA:BB:CC:DD:EE:02", rssi: -50)
            _ = try await mock.bus.call("org.bluez", "/org/bluez", "org.bluez.Mock", "AddDevice", [.string("hci0"), .string("11:22:33:44:55:66"), .string("headphones")])
            let found = try await BlueZScanner(bus: mock.bus).scan(for: .milliseconds(600), services: [MonocleIdentifiers.services])
            #expect(found.map(\.address) == ["AA:BB:CC:DD:EE:02", "AA:BB:CC:DD:EE:01"])
            #expect(found.first?.rssi == -50)
        }
    }

    @Test func sibylsAppRunsOverBlueZ() async throws {
        try await BlueZMock.with { mock in
            let device = try await mock.addMonocle(address: "AA:BB:CC:DD:EE:02", rssi: -50)
            try await TestGlasses.with { glasses in
                let bridge = try await mock.bridge(device: device, to: glasses)
                try await BlueZMock.whileBridged(bridge) {
                    let transport = BlueZTransport(bus: mock.bus, address: "aa:bb:cc:dd:ee:02", services: MonocleIdentifiers.services)
                    let connection = try MonocleConnectionTests.connection(transport)
                    try await connection.serve { observer in
                        let info = try await observer.running(timeout: .seconds(300))
                        #expect(info.uploaded)
                        #expect(info.maximumWriteLength == 253)
                        _ = try await glasses.waitForScreen { $0.lines.contains { $0.lowercased().contains("tap") } }
                        try await connection.show("Über BlueZ angekommen.")
                        _ = try await glasses.waitForScreen { $0.lines.joined(separator: " ").contains("Über BlueZ angekommen.") }
                        // Out of range and back: the connection comes back and finds the app in place.
                        await glasses.disconnect()
                        #expect(try await !observer.running(2, timeout: .seconds(300)).uploaded)
                    }
                }
            }
        }
    }

    @Test func firmwareIsInstalledThroughDfuTargOverBlueZ() async throws {
        try await BlueZMock.with { mock in
            let device = try await mock.addMonocle(address: "AA:BB:CC:DD:EE:02", rssi: -50)
            let package = try DFUFixture.package()
            try await TestGlasses.with(configure: FirmwareUpdateTests.configure) { glasses in
                let bridge = try await mock.bridge(device: device, to: glasses)
                let bootloaderBridge = try await mock.bridgeBootloader(address: "AA:BB:CC:DD:EE:03", to: glasses)
                try await BlueZMock.whileBridged(bridge, bootloaderBridge) {
                    let dfu = BlueZDFUTransport(bus: mock.bus, for: MonocleIdentifiers.services, others: [FrameIdentifiers.services])
                    #expect(await !dfu.bootloaderInReach())
                    var options = GlassesConnection.Options.fast
                    options.firmwarePackage = package
                    options.bootloader = dfu
                    let transport = BlueZTransport(bus: mock.bus, address: "aa:bb:cc:dd:ee:02", services: MonocleIdentifiers.services)
                    try await MonocleConnectionTests.connection(transport, options: options).serve { observer in
                        let info = try await observer.running(timeout: .seconds(90))
                        #expect(info.firmware == "v23.300.1200")
                        #expect(await glasses.installedFirmware == package.firmware)
                        #expect(observer.states.contains(.updatingFirmware(progress: 1)))
                    }
                }
            }
        }
    }
}

/// `sibyl glasses scan | pair | unpair` against the mock BlueZ, and the `sibyl monocle` alias.
@Suite(.timeLimit(.minutes(10)), .serialized, .enabled(if: BlueZMock.available, "dbus-daemon or python3-dbusmock is missing"))
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
        try await BlueZMock.with { mock in
            try await mock.addMonocle(address: "AA:BB:CC:DD:EE:01", rssi: -80)
            try await mock.addMonocle(address: "AA:BB:CC:DD:EE:02", rssi: -50)
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-pair-\(UUID().uuidString.prefix(8))", isDirectory: true)
            defer { try? FileManager.default.removeItem(at: home) }

            let scan = try await sibyl(["glasses", "scan", "--kind", "monocle", "--seconds", "1"], bus: mock.address, home: home)
            #expect(scan.status == 0, "\(scan.output)")
            let lines = scan.output.split(separator: "\n").map(String.init)
            #expect(lines.first?.hasPrefix("monocle  AA:BB:CC:DD:EE:02  monocle      -50 dBm") == true, "\(scan.output)")
            #expect(lines.contains { $0.hasPrefix("monocle  AA:BB:CC:DD:EE:01  monocle      -80 dBm") })

            let pair = try await sibyl(["glasses", "pair", "--kind", "monocle", "--seconds", "1"], bus: mock.address, home: home)
            #expect(pair.status == 0, "\(pair.output)")
            #expect(pair.output.contains("Paired with the Monocle AA:BB:CC:DD:EE:02"))
            #expect(try await sibyl(["config", "get", "glasses.device"], bus: mock.address, home: home).output.contains("AA:BB:CC:DD:EE:02"))
            #expect(try await sibyl(["glasses", "scan", "--seconds", "1"], bus: mock.address, home: home).output.contains("-50 dBm  (paired)"))

            let unpair = try await sibyl(["glasses", "unpair"], bus: mock.address, home: home)
            #expect(unpair.output.contains("Forgot the Monocle AA:BB:CC:DD:EE:02"))
            let connect = try await sibyl(["glasses", "connect", "--kind", "monocle"], bus: mock.address, home: home)
            #expect(connect.status == 1)
            #expect(connect.output.contains("No Monocle is paired yet"))
            #expect(connect.output.contains("sibyl glasses pair --kind monocle"))
        }
    }

    @Test func withNobodyCloseEnoughPairingSaysWhatToDo() async throws {
        try await BlueZMock.with { mock in
            try await mock.addMonocle(address: "AA:BB:CC:DD:EE:01", rssi: -80)
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-pair-\(UUID().uuidString.prefix(8))", isDirectory: true)
            defer { try? FileManager.default.removeItem(at: home) }
            let pair = try await sibyl(["glasses", "pair", "--kind", "monocle", "--seconds", "1"], bus: mock.address, home: home)
            #expect(pair.status == 1)
            #expect(pair.output.contains("No Monocle came close enough"))
        }
    }

    @Test func pairTakesTheNearestOfEitherKindOrOnlyTheKindAskedFor() async throws {
        try await BlueZMock.with { mock in
            try await mock.addMonocle(address: "AA:BB:CC:DD:EE:03", rssi: -55)
            try await mock.addFrame(address: "F2:3C:61:D4:08:5B", rssi: -40)
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-pair-\(UUID().uuidString.prefix(8))", isDirectory: true)
            defer { try? FileManager.default.removeItem(at: home) }

            let glasses = try await sibyl(["glasses", "pair", "--seconds", "1"], bus: mock.address, home: home)
            #expect(glasses.status == 0, "\(glasses.output)")
            #expect(glasses.output.contains("Hold your Monocle or Frame close"), "\(glasses.output)")
            #expect(glasses.output.contains("Paired with the Frame F2:3C:61:D4:08:5B. Connect with: sibyl glasses connect"), "\(glasses.output)")
            #expect(try await sibyl(["config", "get", "glasses.kind"], bus: mock.address, home: home).output.contains("frame"))

            // The Frame is nearer, but `--kind monocle` looks for a Monocle only; so does the old
            // `sibyl monocle pair`, which says where it moved and runs there.
            let monocle = try await sibyl(["monocle", "pair", "--seconds", "1"], bus: mock.address, home: home)
            #expect(monocle.status == 0, "\(monocle.output)")
            #expect(monocle.output.contains("`sibyl monocle pair` is now `sibyl glasses pair --kind monocle`"), "\(monocle.output)")
            #expect(monocle.output.contains("Paired with the Monocle AA:BB:CC:DD:EE:03. Connect with: sibyl glasses connect"), "\(monocle.output)")
            #expect(try await sibyl(["config", "get", "glasses.kind"], bus: mock.address, home: home).output.contains("monocle"))
            #expect(try await sibyl(["config", "get", "glasses.device"], bus: mock.address, home: home).output.contains("AA:BB:CC:DD:EE:03"))
        }
    }
}
