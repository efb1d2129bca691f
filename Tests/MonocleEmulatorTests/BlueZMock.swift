import Foundation
import Glasses
import GlassesBluetooth
import Monocle
import MonocleEmulator
import SecureDFU

/// A private D-Bus bus with python-dbusmock's BlueZ template, and Monocles added to it whose GATT
/// characteristics are carried to and from a virtual Monocle.
final class BlueZMock: @unchecked Sendable {
    let directory: URL
    let address: String
    private var processes: [Process] = []
    private(set) var bus: DBusClient!
    static let available = FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon")
        && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/dbusmock/templates/bluez5.py")

    init() async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-bluez-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let socket = directory.appendingPathComponent("bus").path
        address = "unix:path=\(socket)"
        do {
            try start(["/usr/bin/dbus-daemon", "--config-file=/usr/share/dbus-1/session.conf", "--nofork", "--address=\(address)"], log: "dbus-daemon.log")
            // The socket file appears when it is bound, a moment before the daemon listens on it.
            let deadline = ContinuousClock.now + .seconds(90)
            var client: DBusClient?
            while client == nil {
                do {
                    client = try DBusClient(address: address)
                } catch where ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
            let bus = client!
            self.bus = bus
            for attempt in 1...2 {
                let mock = try start(["/usr/bin/python3", "-m", "dbusmock", "--template", "bluez5", "--system"], log: "dbusmock-\(attempt).log")
                do {
                    try await Self.waitFor("python-dbusmock's org.bluez") {
                        guard mock.isRunning else { return true } // died: try again below
                        return (try? await bus.call("org.bluez", "/", "org.freedesktop.DBus.ObjectManager", "GetManagedObjects")) != nil
                    }
                    if mock.isRunning { break }
                } catch where attempt < 2 {
                    kill(mock.processIdentifier, SIGKILL)
                }
            }
            try await bus.call("org.bluez", "/org/bluez", "org.bluez.Mock", "AddAdapter", [.string("hci0"), .string("sibyl-test")])
        } catch {
            let logs = ["dbus-daemon.log", "dbusmock-1.log", "dbusmock-2.log"].compactMap { name -> String? in
                guard let text = try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8), !text.isEmpty else { return nil }
                return "\(name): \(text.suffix(400))"
            }
            bus?.close()
            stopProcesses()
            throw GlassesError.transport("the mock BlueZ did not start (\(error.localizedDescription)); \(logs.joined(separator: "; "))")
        }
    }

    /// Starts a helper with its output in a log file (never the test's own output: a child left
    /// holding that would keep `swift test` waiting).
    @discardableResult
    private func start(_ command: [String], log: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.environment = ["DBUS_SYSTEM_BUS_ADDRESS": address, "PATH": "/usr/bin:/bin"]
        let logURL = directory.appendingPathComponent(log)
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let handle = try FileHandle(forWritingTo: logURL)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        processes.append(process)
        return process
    }

    private func stopProcesses() {
        for process in processes.reversed() where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    func stop() {
        bus.close()
        stopProcesses()
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

    func addObject(_ path: String, _ interface: String, _ properties: [String: DBusValue], methods: [(String, String, String, String)]) async throws {
        try await bus.call("org.bluez", "/", "org.freedesktop.DBus.Mock", "AddObject", [
            .string(path), .string(interface), .options(properties),
            .array(methods.map { .structure([.string($0.0), .string($0.1), .string($0.2), .string($0.3)]) }, element: "(ssss)"),
        ])
    }

    /// A device's traffic as the radio sees it: the writes to its characteristics (path, bytes) and
    /// its connection changes. `stop` ends both.
    func traffic(of device: String) async throws -> (writes: AsyncStream<(String, Data)>, links: AsyncStream<Bool>, stop: @Sendable () -> Void) {
        let bus: DBusClient = self.bus
        try await bus.addMatch("type='signal',interface='org.sibyl.Test'")
        try await bus.addMatch("type='signal',interface='org.freedesktop.DBus.Properties'")
        let (writes, sink) = AsyncStream<(String, Data)>.makeStream()
        let (links, linkSink) = AsyncStream<Bool>.makeStream()
        let handler = bus.onSignal { signal in
            if signal.member == "Written", signal.path.hasPrefix(device + "/"), let bytes = signal.arguments.first?.data {
                sink.yield((signal.path, bytes))
            } else if signal.member == "PropertiesChanged", signal.path == device,
                      signal.arguments.first?.string == "org.bluez.Device1", let connected = signal.arguments.dropFirst().first?.entries?["Connected"]?.bool {
                linkSink.yield(connected)
            }
        }
        return (writes, links, {
            sink.finish()
            linkSink.finish()
            bus.removeHandler(handler)
        })
    }

    /// Sets properties of a mock object, as BlueZ would on a notification or a lost link.
    func update(_ path: String, _ interface: String, _ properties: [String: DBusValue]) async {
        _ = try? await bus.call("org.bluez", path, "org.freedesktop.DBus.Mock", "UpdateProperties", [.string(interface), .options(properties)])
    }

    /// Runs the bridge's loops until cancelled.
    func serve(_ loops: [@Sendable () async -> Void], stop: @escaping @Sendable () -> Void) -> Task<Void, Never> {
        Task {
            await withTaskGroup(of: Void.self) { group in
                for loop in loops { group.addTask { await loop() } }
                await withTaskCancellationHandler {
                    await group.waitForAll()
                } onCancel: {
                    stop()
                }
            }
        }
    }

    /// Carries a device's writes to the virtual glasses and their notifications back, as the radio would.
    func bridge(device: String, to glasses: MonocleEmulator) async throws -> Task<Void, Never> {
        let phone = EmulatorTransport(emulator: glasses)
        let (writes, links, stop) = try await traffic(of: device)
        return serve([
            {
                for await connected in links {
                    if connected { try? await phone.connect() } else { await phone.disconnect() }
                }
            },
            {
                for await (path, bytes) in writes {
                    try? await phone.write(bytes, to: path.hasSuffix("service1/char1") ? .serial : .data)
                }
            },
            {
                for await event in phone.events {
                    switch event {
                    case .received(let channel, let bytes):
                        await self.update("\(device)/service\(channel == .serial ? 1 : 2)/char2", "org.bluez.GattCharacteristic1", ["Value": .bytes(bytes)])
                    case .disconnected:
                        // The glasses went away: BlueZ reports the device disconnected.
                        await self.update(device, "org.bluez.Device1", ["Connected": .bool(false)])
                    case .connected:
                        break
                    }
                }
            },
        ], stop: stop)
    }

    /// Shows a device advertising as "DfuTarg" (with the DFU service) while the virtual glasses are in
    /// their bootloader, and carries its control point and packet writes to them, as the radio would.
    func bridgeBootloader(address: String, to glasses: MonocleEmulator) async throws -> Task<Void, Never> {
        let dfu = EmulatorDFUTransport(emulator: glasses)
        let device = "/org/bluez/hci0/dev_" + address.replacingOccurrences(of: ":", with: "_")
        let (writes, links, stop) = try await traffic(of: device)
        let bus: DBusClient = self.bus
        return serve([
            {
                // Advertising: the device appears while the glasses are in their bootloader, and goes when they leave it.
                var advertising = false
                while !Task.isCancelled {
                    let inBootloader = await glasses.bootloader != nil
                    if inBootloader && !advertising {
                        try? await self.addDfuTarg(address: address, device: device)
                    } else if !inBootloader && advertising {
                        _ = try? await bus.call("org.bluez", "/org/bluez/hci0", "org.bluez.Adapter1", "RemoveDevice", [.objectPath(device)])
                    }
                    advertising = inBootloader
                    try? await Task.sleep(for: .milliseconds(50))
                }
            },
            {
                for await connected in links {
                    if !connected {
                        await dfu.disconnect()
                    } else if (try? await dfu.connect()) == nil {
                        await self.update(device, "org.bluez.Device1", ["Connected": .bool(false)])
                    }
                }
            },
            {
                for await (path, bytes) in writes {
                    if path.hasSuffix("service1/char1") { try? await dfu.writeControl(bytes) } else { try? await dfu.writePacket(bytes) }
                }
            },
            {
                for await event in dfu.events {
                    switch event {
                    case .notification(let bytes):
                        await self.update("\(device)/service1/char1", "org.bluez.GattCharacteristic1", ["Value": .bytes(bytes)])
                    case .disconnected:
                        await self.update(device, "org.bluez.Device1", ["Connected": .bool(false)])
                    case .connected:
                        break
                    }
                }
            },
        ], stop: stop)
    }

    /// Adds (or brings back) the bootloader's device with the DFU service: control point and packet.
    func addDfuTarg(address: String, device: String, name: String = MonocleIdentifiers.bootloaderName) async throws {
        let objects = try await bus.call("org.bluez", "/", "org.freedesktop.DBus.ObjectManager", "GetManagedObjects")
        let known = Set((objects.first?.entries ?? [:]).keys)
        if !known.contains(device) {
            _ = try await bus.call("org.bluez", "/org/bluez", "org.bluez.Mock", "AddDevice", [.string("hci0"), .string(address), .string(name)])
        }
        let service = "\(device)/service1"
        if !known.contains(service) {
            try await addObject(service, "org.bluez.GattService1", [
                "UUID": .string(SecureDFU.service), "Primary": .bool(true), "Device": .objectPath(device),
            ], methods: [])
            for (index, (uuid, flags)) in [(SecureDFU.controlPoint, ["write", "notify"]), (SecureDFU.packet, ["write-without-response"])].enumerated() {
                try await addObject("\(service)/char\(index + 1)", "org.bluez.GattCharacteristic1", [
                    "UUID": .string(uuid), "Service": .objectPath(service), "Value": .bytes(Data()), "MTU": .uint16(247),
                    "Flags": .array(flags.map { .string($0) }, element: "s"),
                ], methods: [
                    ("StartNotify", "", "", ""),
                    ("StopNotify", "", "", ""),
                    ("WriteValue", "aya{sv}", "", "self.EmitSignal('org.sibyl.Test', 'Written', 'ay', [args[0]])"),
                ])
            }
        }
        try await bus.call("org.bluez", device, "org.freedesktop.DBus.Mock", "UpdateProperties", [
            .string("org.bluez.Device1"),
            .options(["RSSI": .int16(-50), "Name": .string(name), "UUIDs": .array([.string(SecureDFU.service)], element: "s")]),
        ])
    }

    /// Waits for a helper process to come up; generous, because the whole suite may be loading both cores.
    static func waitFor(_ what: String, _ condition: @Sendable () async -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(90)
        while ContinuousClock.now < deadline {
            if await condition() { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw GlassesError.timeout(waitingFor: what, after: .seconds(90))
    }
}
