public import Foundation
public import Glasses
public import SecureDFU

/// Secure DFU to glasses in their bootloader over BlueZ: finds the device advertising the
/// bootloader's name (Monocle's `DfuTarg`, Frame's "Frame Update") or, without a name, the DFU
/// service 0xFE59; connects, turns the control point's notifications on, writes requests
/// with response and object bytes without response.
public final class BlueZDFUTransport: DFUTransport {
    public let events: AsyncStream<DFUTransportEvent>
    private let continuation: AsyncStream<DFUTransportEvent>.Continuation
    private let bus: DBusClient
    private let adapter: String
    /// The name the bootloader advertises.
    public let bootloaderName: String
    /// The names other glasses' bootloaders advertise: devices with them are not this one.
    private let otherBootloaderNames: [String]
    private let link = SharedState(Link())
    private let handler: Int

    struct Link: BlueZLink {
        var device: String?
        var control: String?
        var packet: String?
        var writeLength = 20
        var connected = false
    }

    /// To the bootloader of the glasses `services` describe; those of `others` are left alone.
    public init(bus: DBusClient, adapter: String = "hci0", for services: GlassesServices, others: [GlassesServices] = []) {
        self.bus = bus
        self.adapter = adapter
        bootloaderName = services.bootloaderName
        otherBootloaderNames = others.map(\.bootloaderName).filter { $0 != services.bootloaderName }
        let (events, continuation) = AsyncStream<DFUTransportEvent>.makeStream(bufferingPolicy: .unbounded)
        self.events = events
        self.continuation = continuation
        let link = self.link
        handler = bus.onSignal { signal in
            guard let (interface, changed) = BlueZ.changedProperties(signal) else { return }
            if interface == BlueZ.characteristic, signal.path == link.withLock({ $0.control }), let value = changed["Value"]?.data {
                continuation.yield(.notification(value))
            } else if link.lost(signal, interface: interface, changed: changed) {
                continuation.yield(.disconnected(reason: "the bootloader went out of reach"))
            }
        }
    }

    deinit {
        bus.removeHandler(handler)
    }

    /// Whether BlueZ's device looks like the DFU bootloader wanted: its name, or the DFU service
    /// on a device that does not advertise another glasses' bootloader name.
    static func isBootloader(_ device: [String: DBusValue], named wanted: String, others: [String]) -> Bool {
        let name = device["Name"]?.string ?? device["Alias"]?.string
        if name == wanted { return true }
        if let name, others.contains(name) { return false }
        return (device["UUIDs"]?.strings ?? []).contains(SecureDFU.service)
    }

    /// Bootloaders BlueZ has seen recently (with a signal strength), strongest first.
    private func bootloaders() async throws -> [String] {
        try await BlueZ.objects(bus).compactMap { path, interfaces -> (String, Int)? in
            guard path.hasPrefix("/org/bluez/\(adapter)/"), let device = interfaces[BlueZ.device], Self.isBootloader(device, named: bootloaderName, others: otherBootloaderNames),
                  let rssi = device["RSSI"]?.integer else { return nil }
            return (path, rssi)
        }
        .sorted { $0.1 > $1.1 }
        .map(\.0)
    }

    /// Looks (for up to 3 s, scanning if need be) for a device advertising as the bootloader.
    public func bootloaderInReach() async -> Bool {
        let deadline = ContinuousClock.now + .seconds(3)
        var scanning = false
        while true {
            if (try? await bootloaders().isEmpty == false) == true { return true }
            if !scanning {
                scanning = (try? await discover()) != nil
                if !scanning { return false }
            }
            guard ContinuousClock.now < deadline, (try? await Task.sleep(for: .milliseconds(250))) != nil else {
                _ = try? await bus.call(BlueZ.service, "/org/bluez/\(adapter)", BlueZ.adapter, "StopDiscovery")
                return false
            }
        }
    }

    public func connect() async throws {
        do {
            try await bus.addMatch("type='signal',interface='\(BlueZ.properties)',member='PropertiesChanged'")
            guard let device = try await bootloaders().first else {
                try await discover()
                throw DFUError.bootloaderNotFound("no \(bootloaderName) is advertising yet")
            }
            do {
                try await bus.call(BlueZ.service, device, BlueZ.device, "Connect")
            } catch let error as DBusError where error.name == "org.bluez.Error.AlreadyConnected" {
                // Fine: still connected from an earlier attempt.
            }
            let found = try await BlueZ.characteristics(bus, under: device, wanted: [SecureDFU.controlPoint, SecureDFU.packet], services: "the bootloader's DFU service")
            guard let control = found.paths[SecureDFU.controlPoint], let packet = found.paths[SecureDFU.packet] else {
                throw DFUError.bootloaderNotFound("the DFU service is incomplete")
            }
            try await bus.call(BlueZ.service, control, BlueZ.characteristic, "StartNotify")
            link.withLock { $0 = Link(device: device, control: control, packet: packet, writeLength: found.writeLength, connected: true) }
            _ = try? await bus.call(BlueZ.service, "/org/bluez/\(adapter)", BlueZ.adapter, "StopDiscovery")
            continuation.yield(.connected(maximumWriteLength: found.writeLength))
        } catch let error as DBusError {
            throw DFUError.bootloaderNotFound(error.message)
        } catch let error as GlassesError {
            throw DFUError.bootloaderNotFound(error.localizedDescription)
        }
    }

    /// Starts looking for the bootloader's advertisements (it appears seconds after the glasses restart).
    private func discover() async throws {
        try await BlueZ.startDiscovery(bus, adapter: adapter, service: SecureDFU.service)
    }

    public func writeControl(_ bytes: Data) async throws {
        guard let path = link.withLock({ $0.connected ? $0.control : nil }) else { throw DFUError.disconnected("not connected to \(bootloaderName)") }
        do {
            // With response: the bootloader takes requests one at a time, in order.
            try await bus.call(BlueZ.service, path, BlueZ.characteristic, "WriteValue", [.bytes(bytes), .options(["type": .string("request")])])
        } catch let error as DBusError {
            throw DFUError.disconnected(error.message)
        }
    }

    public func writePacket(_ bytes: Data) async throws {
        guard let path = link.withLock({ $0.connected ? $0.packet : nil }) else { throw DFUError.disconnected("not connected to \(bootloaderName)") }
        try await bus.call(BlueZ.service, path, BlueZ.characteristic, "WriteValue",
                           [.bytes(bytes), .options(["type": .string("command")])], expectReply: false)
    }

    public func disconnect() async {
        if await link.disconnect(on: bus) { continuation.yield(.disconnected(reason: "disconnected by Sibyl")) }
    }
}
