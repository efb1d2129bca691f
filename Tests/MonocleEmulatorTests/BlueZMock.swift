import Foundation
import Monocle
import MonocleBluetooth
import MonocleEmulator

/// A private D-Bus bus with python-dbusmock's BlueZ template, and Monocles added to it whose GATT
/// characteristics are carried to and from a virtual Monocle.
final class BlueZMock: @unchecked Sendable {
    let directory: URL
    let address: String
    private var processes: [Process] = []
    let bus: DBusClient
    static let available = FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon")
        && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/dbusmock/templates/bluez5.py")

    init() async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-bluez-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let socket = directory.appendingPathComponent("bus").path
        address = "unix:path=\(socket)"
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        daemon.arguments = ["--config-file=/usr/share/dbus-1/session.conf", "--nofork", "--address=\(address)"]
        // Never the test's own output: a child left holding it would keep `swift test` waiting.
        daemon.standardOutput = FileHandle.nullDevice
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        processes.append(daemon)
        try await Self.waitFor { FileManager.default.fileExists(atPath: socket) }
        let mock = Process()
        mock.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        mock.arguments = ["-m", "dbusmock", "--template", "bluez5", "--system"]
        mock.environment = ["DBUS_SYSTEM_BUS_ADDRESS": address, "PATH": "/usr/bin:/bin"]
        mock.standardOutput = FileHandle.nullDevice
        mock.standardError = FileHandle.nullDevice
        try mock.run()
        processes.append(mock)
        bus = try DBusClient(address: address)
        let bus = self.bus
        try await Self.waitFor { (try? await bus.call("org.bluez", "/", "org.freedesktop.DBus.ObjectManager", "GetManagedObjects")) != nil }
        try await bus.call("org.bluez", "/org/bluez", "org.bluez.Mock", "AddAdapter", [.string("hci0"), .string("sibyl-test")])
    }

    func stop() {
        bus.close()
        for process in processes.reversed() where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Adds a device advertising as "monocle", with the REPL and data services, at a signal strength.
    @discardableResult
    func addMonocle(address: String, rssi: Int16, mtu: UInt16 = 256) async throws -> String {
        let reply = try await bus.call("org.bluez", "/org/bluez", "org.bluez.Mock", "AddDevice", [.string("hci0"), .string(address), .string("monocle")])
        let device = reply.first?.string ?? ""
        try await bus.call("org.bluez", device, "org.freedesktop.DBus.Mock", "UpdateProperties", [
            .string("org.bluez.Device1"),
            .options(["RSSI": .int16(rssi), "UUIDs": .array([.string(MonocleIdentifiers.serialService)], element: "s")]),
        ])
        for (index, (service, characteristics)) in [
            (MonocleIdentifiers.serialService, [MonocleIdentifiers.serialRX, MonocleIdentifiers.serialTX]),
            (MonocleIdentifiers.dataService, [MonocleIdentifiers.dataRX, MonocleIdentifiers.dataTX]),
        ].enumerated() {
            let servicePath = "\(device)/service\(index + 1)"
            try await addObject(servicePath, "org.bluez.GattService1", [
                "UUID": .string(service), "Primary": .bool(true), "Device": .objectPath(device),
            ], methods: [])
            for (offset, uuid) in characteristics.enumerated() {
                try await addObject("\(servicePath)/char\(offset + 1)", "org.bluez.GattCharacteristic1", [
                    "UUID": .string(uuid), "Service": .objectPath(servicePath), "Value": .bytes(Data()), "MTU": .uint16(mtu),
                    "Flags": .array(offset == 0 ? [.string("write"), .string("write-without-response")] : [.string("notify")], element: "s"),
                ], methods: [
                    ("StartNotify", "", "", ""),
                    ("StopNotify", "", "", ""),
                    ("WriteValue", "aya{sv}", "", "self.EmitSignal('org.sibyl.Test', 'Written', 'ay', [args[0]])"),
                ])
            }
        }
        return device
    }

    private func addObject(_ path: String, _ interface: String, _ properties: [String: DBusValue], methods: [(String, String, String, String)]) async throws {
        try await bus.call("org.bluez", "/", "org.freedesktop.DBus.Mock", "AddObject", [
            .string(path), .string(interface), .options(properties),
            .array(methods.map { .structure([.string($0.0), .string($0.1), .string($0.2), .string($0.3)]) }, element: "(ssss)"),
        ])
    }

    /// Carries a device's writes to the virtual glasses and their notifications back, as the radio would.
    func bridge(device: String, to glasses: MonocleEmulator) async throws -> Task<Void, Never> {
        let phone = EmulatorTransport(emulator: glasses)
        let bus = self.bus
        try await bus.addMatch("type='signal',interface='org.sibyl.Test'")
        try await bus.addMatch("type='signal',interface='org.freedesktop.DBus.Properties'")
        let (writes, sink) = AsyncStream<(String, Data)>.makeStream()
        let (links, linkSink) = AsyncStream<Bool>.makeStream()
        let handler = bus.onSignal { signal in
            if signal.member == "Written", let bytes = signal.arguments.first?.data {
                sink.yield((signal.path, bytes))
            } else if signal.member == "PropertiesChanged", signal.path == device,
                      signal.arguments.first?.string == "org.bluez.Device1", let connected = signal.arguments.dropFirst().first?.entries?["Connected"]?.bool {
                linkSink.yield(connected)
            }
        }
        return Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await connected in links {
                        if connected { try? await phone.connect() } else { await phone.disconnect() }
                    }
                }
                group.addTask {
                    for await (path, bytes) in writes {
                        try? await phone.write(bytes, to: path.hasSuffix("service1/char1") ? .serial : .data)
                    }
                }
                group.addTask {
                    for await event in phone.events {
                        switch event {
                        case .received(let channel, let bytes):
                            let path = "\(device)/service\(channel == .serial ? 1 : 2)/char2"
                            _ = try? await bus.call("org.bluez", path, "org.freedesktop.DBus.Mock", "UpdateProperties", [
                                .string("org.bluez.GattCharacteristic1"), .options(["Value": .bytes(bytes)]),
                            ])
                        case .disconnected:
                            // The glasses went away: BlueZ reports the device disconnected.
                            _ = try? await bus.call("org.bluez", device, "org.freedesktop.DBus.Mock", "UpdateProperties", [
                                .string("org.bluez.Device1"), .options(["Connected": .bool(false)]),
                            ])
                        case .connected:
                            break
                        }
                    }
                }
                await withTaskCancellationHandler {
                    await group.waitForAll()
                } onCancel: {
                    sink.finish()
                    linkSink.finish()
                    bus.removeHandler(handler)
                }
            }
        }
    }

    static func waitFor(_ condition: @Sendable () async -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            if await condition() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw MonocleError.timeout(waitingFor: "the mock BlueZ", after: .seconds(15))
    }
}
