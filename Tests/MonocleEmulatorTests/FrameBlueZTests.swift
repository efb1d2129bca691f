import Foundation
import FrameEmulator
import FrameGlasses
import FrameProtocol
import Glasses
import GlassesBluetooth
import Monocle
import Testing

extension BlueZMock {
    /// Adds a device advertising as "Frame XX" with Frame's one service, not yet paired.
    @discardableResult
    func addFrame(address: String, rssi: Int16, mtu: UInt16 = 247) async throws -> String {
        let name = "Frame " + address.suffix(2)
        let reply = try await bus.call("org.bluez", "/org/bluez", "org.bluez.Mock", "AddDevice", [.string("hci0"), .string(address), .string(name)])
        let device = reply.first?.string ?? ""
        try await bus.call("org.bluez", device, "org.freedesktop.DBus.Mock", "UpdateProperties", [
            .string("org.bluez.Device1"),
            .options(["RSSI": .int16(rssi), "UUIDs": .array([.string(FrameIdentifiers.service)], element: "s"), "Paired": .bool(false)]),
        ])
        let service = "\(device)/service1"
        try await addObject(service, "org.bluez.GattService1", ["UUID": .string(FrameIdentifiers.service), "Primary": .bool(true), "Device": .objectPath(device)], methods: [])
        for (index, (uuid, flags)) in [(FrameIdentifiers.hostToFrame, ["write", "write-without-response"]), (FrameIdentifiers.frameToHost, ["notify"])].enumerated() {
            try await addObject("\(service)/char\(index + 1)", "org.bluez.GattCharacteristic1", [
                "UUID": .string(uuid), "Service": .objectPath(service), "Value": .bytes(Data()), "MTU": .uint16(mtu),
                "Flags": .array(flags.map { .string($0) }, element: "s"),
            ], methods: [
                ("StartNotify", "", "", ""),
                ("StopNotify", "", "", ""),
                ("WriteValue", "aya{sv}", "", "self.EmitSignal('org.sibyl.Test', 'Written', 'ay', [args[0]])"),
            ])
        }
        return device
    }

    /// Carries a Frame device's writes to the virtual Frame and its notifications back, as the radio would.
    func bridge(frame device: String, to emulator: FrameEmulator, mtu: Int = 247) async throws -> Task<Void, Never> {
        let (writes, links, stop) = try await traffic(of: device)
        let notifications = emulator.notifications
        return serve([
            {
                for await connected in links {
                    if connected { try? emulator.connect(mtu: mtu) } else { emulator.disconnect() }
                }
            },
            {
                for await (_, bytes) in writes { try? await emulator.write(bytes) }
            },
            {
                for await notification in notifications {
                    await self.update("\(device)/service1/char2", "org.bluez.GattCharacteristic1", ["Value": .bytes(notification)])
                }
            },
        ], stop: stop)
    }
}

/// Frame over BlueZ: python-dbusmock's BlueZ on a private bus, bridged to the virtual Frame.
@Suite(.timeLimit(.minutes(10)), .serialized, .enabled(if: BlueZMock.available, "dbus-daemon or python3-dbusmock is missing"))
struct FrameBlueZTests {
    @Test func scanFindsBothKindsAndTellsThemApart() async throws {
        try await BlueZMock.with { mock in
            try await mock.addMonocle(address: "AA:BB:CC:DD:EE:01", rssi: -70)
            try await mock.addFrame(address: "F2:3C:61:D4:08:5A", rssi: -45)
            _ = try await mock.bus.call("org.bluez", "/org/bluez", "org.bluez.Mock", "AddDevice", [.string("hci0"), .string("11:22:33:44:55:66"), .string("headphones")])
            let found = try await BlueZScanner(bus: mock.bus).scan(for: .milliseconds(600), services: [MonocleIdentifiers.services, FrameIdentifiers.services])
            #expect(found.map(\.kind) == [.frame, .monocle])
            #expect(found.first?.name == "Frame 5A")
            #expect(found.first?.address == "F2:3C:61:D4:08:5A")
            #expect(found.first?.paired == false)
        }
    }

    @Test func sibylsFrameAppRunsOverBlueZAfterPairing() async throws {
        try await BlueZMock.with { mock in
            let device = try await mock.addFrame(address: "F2:3C:61:D4:08:5A", rssi: -45)
            let flash = FileManager.default.temporaryDirectory.appending(path: "sibyl-frame-bluez-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: flash) }
            let emulator = try FrameEmulator(flash: flash)
            try await emulator.powerOn()
            let bridge = try await mock.bridge(frame: device, to: emulator)
            try await BlueZMock.whileBridged(bridge) {
                let transport = BlueZTransport(bus: mock.bus, address: "f2:3c:61:d4:08:5a", services: FrameIdentifiers.services)
                let connection = GlassesConnection(transport: transport, driver: FrameDriver(options: .fast), options: .fast)
                try await connection.serve { observer in
                    let info = try await observer.running(timeout: .seconds(300))
                    #expect(info.uploaded)
                    #expect(info.mtu == 247)
                    let objects = try await mock.bus.call("org.bluez", "/", "org.freedesktop.DBus.ObjectManager", "GetManagedObjects")
                    let paired = objects.first?.entries?[device]?.entries?["org.bluez.Device1"]?.entries?["Paired"]?.bool
                    #expect(paired == true, "the transport pairs before it connects")
                    try await connection.show("Über BlueZ angekommen.")
                    _ = try await observer.until("the text on the glasses") { emulator.display.current?.texts.contains("Über BlueZ angekommen.") == true ? true : nil }
                }
                await emulator.powerOff()
            }
        }
    }
}
