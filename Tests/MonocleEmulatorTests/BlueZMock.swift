import Foundation
import Glasses
import GlassesBluetooth
import Monocle
import MonocleEmulator
import SecureDFU
import SibylCore
import SibylTestSupport

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
            // The daemon prints its address once it listens on it: the event to connect at.
            let printed = Observed<(text: String, ended: Bool)>(("", false))
            let output = Pipe()
            try start(["/usr/bin/dbus-daemon", "--config-file=/usr/share/dbus-1/session.conf", "--nofork", "--address=\(address)", "--print-address"],
                      log: "dbus-daemon.log", output: output)
            PipeDrain.start(output.fileHandleForReading, chunk: { chunk in printed.update { $0.text += String(decoding: chunk, as: UTF8.self) } },
                            ended: { printed.update { $0.ended = true } })
            let listening = try await printed.wait(for: "dbus-daemon's address", within: .seconds(90)) { $0.text.contains("\n") || $0.ended }
            guard listening.text.contains("\n") else { throw GlassesError.transport("dbus-daemon ended without listening") }
            let bus = try DBusClient(address: address)
            self.bus = bus
            // python-dbusmock takes the name org.bluez once its template is set up (its method calls
            // are answered once its main loop runs); it may also die at start: either is an event.
            try await bus.addMatch("type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='org.bluez'")
            let named = Observed(false)
            let handler = bus.onSignal { signal in
                if signal.member == "NameOwnerChanged", signal.arguments.first?.string == "org.bluez", signal.arguments.dropFirst(2).first?.string?.isEmpty == false {
                    named.update { $0 = true }
                }
            }
            defer { bus.removeHandler(handler) }
            for attempt in 1...2 {
                let died = Observed(false)
                let mock = try start(["/usr/bin/python3", "-m", "dbusmock", "--template", "bluez5", "--system"], log: "dbusmock-\(attempt).log") { died.update { $0 = true } }
                do {
                    try await named.wait(for: "python-dbusmock's org.bluez", within: .seconds(90)) { $0 || died.value }
                    if !died.value {
                        _ = try await bus.call("org.bluez", "/", "org.freedesktop.DBus.ObjectManager", "GetManagedObjects")
                        break
                    }
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
            await stopProcesses()
            throw GlassesError.transport("the mock BlueZ did not start (\(error.localizedDescription)); \(logs.joined(separator: "; "))")
        }
    }

    /// Starts a helper with its output in a log file (never the test's own output: a child left
    /// holding that would keep `swift test` waiting). `output`, when given, takes its standard output instead (a pipe this test reads); `exited`
    /// is called when it ends.
    @discardableResult
    private func start(_ command: [String], log: String, output: Pipe? = nil, exited: (@Sendable () -> Void)? = nil) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.environment = ["DBUS_SYSTEM_BUS_ADDRESS": address, "PATH": "/usr/bin:/bin"]
        let logURL = directory.appendingPathComponent(log)
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let handle = try FileHandle(forWritingTo: logURL)
        process.standardOutput = output ?? handle
        process.standardError = handle
        if let exited { process.terminationHandler = { _ in exited() } }
        try process.run()
        processes.append(process)
        return process
    }

    /// Kills the helpers and awaits their exits (without holding a thread meanwhile).
    private func stopProcesses() async {
        for process in processes.reversed() where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            await process.exited()
        }
    }

    /// Runs `body` with a mock BlueZ, and stops it afterwards whatever happens, awaiting its helpers' exits.
    static func with<T>(_ body: (BlueZMock) async throws -> T) async throws -> T {
        let mock = try await BlueZMock()
        return try await withTeardown { try await body(mock) } teardown: { await mock.stop() }
    }

    func stop() async {
        bus.close()
        await stopProcesses()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs `body` while `bridges` carry the radio's traffic, and ends them afterwards whatever
    /// happens, awaiting their ends.
    static func whileBridged<T>(_ bridges: Task<Void, Never>..., body: () async throws -> T) async throws -> T {
        try await withTeardown(body) {
            for bridge in bridges { bridge.cancel() }
            for bridge in bridges { await bridge.value }
        }
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
                    // The radio's scan interval: the mock looks at the glasses as a scanning phone
                    // would, every 50 ms (what it simulates; nothing waits on this pause's length).
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
}
