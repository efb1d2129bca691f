import Foundation
public import Glasses
public import SibylCore
import Synchronization

/// What a BlueZ transport knows of its link.
protocol BlueZLink: Sendable {
    /// The device's object path, once connected.
    var device: String? { get }
    var connected: Bool { get set }
}

/// A link's state, shared between a transport and its D-Bus signal handler.
final class SharedState<Value: Sendable>: Sendable {
    private let state: Mutex<Value>

    init(_ value: Value) {
        state = Mutex(value)
    }

    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        try state.withLock { try body(&$0) }
    }
}

extension SharedState where Value: BlueZLink {
    /// Marks the link down; returns the link as it was.
    func takeDown() -> Value {
        withLock { link in
            defer { link.connected = false }
            return link
        }
    }

    /// Whether a PropertiesChanged signal says this link's device disconnected while it was up (it is marked down).
    func lost(_ signal: DBusSignal, interface: String, changed: [String: DBusValue]) -> Bool {
        guard interface == BlueZ.device, signal.path == withLock({ $0.device }), changed["Connected"]?.bool == false else { return false }
        return takeDown().connected
    }

    /// Watches the bus for this link: a characteristic's new value goes to `notified` with the
    /// characteristic's path, and the device going out of reach while the link was up to
    /// `outOfReach`. Returns the handler's id, to remove it with the transport.
    func watch(
        _ bus: DBusClient, notified: @escaping @Sendable (_ path: String, _ value: Data) -> Void, outOfReach: @escaping @Sendable () -> Void
    ) -> Int {
        bus.onSignal { [self] signal in
            guard let (interface, changed) = BlueZ.changedProperties(signal) else { return }
            if interface == BlueZ.characteristic, let value = changed["Value"]?.data {
                notified(signal.path, value)
            } else if lost(signal, interface: interface, changed: changed) {
                outOfReach()
            }
        }
    }

    /// Disconnects the device, if the link is up; returns whether it was.
    func disconnect(on bus: DBusClient) async -> Bool {
        let current = takeDown()
        guard current.connected, let device = current.device else { return false }
        _ = try? await bus.call(BlueZ.service, device, BlueZ.device, "Disconnect")
        return true
    }
}

/// BlueZ's D-Bus names.
enum BlueZ {
    static let service = "org.bluez"
    static let adapter = "org.bluez.Adapter1"
    static let device = "org.bluez.Device1"
    static let characteristic = "org.bluez.GattCharacteristic1"
    static let objectManager = "org.freedesktop.DBus.ObjectManager"
    static let properties = "org.freedesktop.DBus.Properties"

    /// A PropertiesChanged signal, read: which interface, and the properties that changed.
    static func changedProperties(_ signal: DBusSignal) -> (interface: String, changed: [String: DBusValue])? {
        guard signal.member == "PropertiesChanged", signal.arguments.count >= 2,
              let interface = signal.arguments[0].string, let changed = signal.arguments[1].entries else { return nil }
        return (interface, changed)
    }

    /// Starts LE discovery of devices that advertise `service`, reporting every advertisement (so the
    /// signal strength stays current). Discovery someone else started serves as well.
    static func startDiscovery(_ bus: DBusClient, adapter: String, service: String) async throws {
        try await startDiscovery(bus, adapter: adapter, services: [service])
    }

    /// Starts LE discovery of devices that advertise any of `services`.
    static func startDiscovery(_ bus: DBusClient, adapter: String, services: [String]) async throws {
        let adapterPath = "/org/bluez/\(adapter)"
        try await bus.call(self.service, adapterPath, self.adapter, "SetDiscoveryFilter", [.options([
            "Transport": .string("le"),
            "UUIDs": .array(services.map { .string($0) }, element: "s"),
            "DuplicateData": .bool(true),
        ])])
        do {
            try await bus.call(self.service, adapterPath, self.adapter, "StartDiscovery")
        } catch let error as DBusError where error.name == "org.bluez.Error.InProgress" {
            // Someone else is scanning already: their results serve as well.
        }
    }

    /// Finds the device with `address` under `adapter` (signals about it are watched from now
    /// on); returns its object path and properties, or nil when BlueZ does not know it.
    static func knownDevice(_ bus: DBusClient, adapter: String, address: String) async throws -> (path: String, properties: [String: DBusValue])? {
        try await bus.addMatch("type='signal',interface='\(properties)',member='PropertiesChanged'")
        let found = try await objects(bus).first { path, interfaces in
            path.hasPrefix("/org/bluez/\(adapter)/") && interfaces[BlueZ.device]?["Address"]?.string?.uppercased() == address.uppercased()
        }
        return found.map { ($0.key, $0.value[BlueZ.device] ?? [:]) }
    }

    /// Connects to the device at `path`; one already connected is fine.
    static func connect(_ bus: DBusClient, device path: String) async throws {
        do {
            try await bus.call(service, path, BlueZ.device, "Connect")
        } catch let error as DBusError where error.name == "org.bluez.Error.AlreadyConnected" {
            // Fine: connected by an earlier run or another program.
        }
    }

    /// Every object BlueZ exports: path → interface → property → value.
    static func objects(_ bus: DBusClient) async throws -> [String: [String: [String: DBusValue]]] {
        let reply = try await bus.call(service, "/", objectManager, "GetManagedObjects")
        var objects: [String: [String: [String: DBusValue]]] = [:]
        for (path, interfaces) in reply.first?.entries ?? [:] {
            var byInterface: [String: [String: DBusValue]] = [:]
            for (name, properties) in interfaces.entries ?? [:] { byInterface[name] = properties.entries ?? [:] }
            objects[path] = byInterface
        }
        return objects
    }

    /// Waits (up to 10 s) for BlueZ to resolve a device's services, and finds the characteristics
    /// wanted (UUID → object path), with the link's write length (ATT MTU − 3).
    static func characteristics(_ bus: DBusClient, under device: String, wanted: [String], services: String) async throws -> (paths: [String: String], writeLength: Int) {
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            var paths: [String: String] = [:]
            var mtu: Int?
            for (path, interfaces) in try await objects(bus) where path.hasPrefix(device + "/") {
                guard let properties = interfaces[characteristic], let uuid = properties["UUID"]?.string?.lowercased(), wanted.contains(uuid) else { continue }
                paths[uuid] = path
                if let value = properties["MTU"]?.integer { mtu = value }
            }
            if paths.count == wanted.count {
                // BlueZ reports the ATT MTU; a write carries 3 bytes less. Without it, the ATT minimum.
                return (paths, max((mtu ?? 23) - 3, 20))
            }
            guard ContinuousClock.now < deadline else {
                throw GlassesError.transport("\(services) did not appear (found \(paths.count) of \(wanted.count) characteristics)")
            }
            try await Task.sleep(for: .milliseconds(200))
        }
    }
}

/// Glasses of either kind seen while scanning.
public struct DiscoveredGlasses: Sendable, Hashable {
    /// Which glasses.
    public var kind: GlassesKind
    /// Their Bluetooth address.
    public var address: String
    /// The name they advertise.
    public var name: String
    /// Their signal strength in dBm, when BlueZ has one.
    public var rssi: Int?
    /// Whether BlueZ holds a bond with them.
    public var paired: Bool
    /// BlueZ's object path for them.
    public var path: String
}

/// Finds glasses through BlueZ: by the services (and names) each kind advertises.
public struct BlueZScanner: Sendable {
    let bus: DBusClient
    let adapter: String

    public init(bus: DBusClient, adapter: String = "hci0") {
        self.bus = bus
        self.adapter = adapter
    }

    /// Scans for glasses of the kinds `services` describe for `duration`, reporting what is seen
    /// as it is seen; returns the last sighting of each, nearest first.
    public func scan(
        for duration: Duration, services: [GlassesServices], seen: @Sendable ([DiscoveredGlasses]) -> Void = { _ in }
    ) async throws -> [DiscoveredGlasses] {
        let adapterPath = "/org/bluez/\(adapter)"
        try await BlueZ.startDiscovery(bus, adapter: adapter, services: services.flatMap(\.advertised))
        defer { Task { [bus] in _ = try? await bus.call(BlueZ.service, adapterPath, BlueZ.adapter, "StopDiscovery") } }
        let deadline = ContinuousClock.now + duration
        var found: [DiscoveredGlasses] = []
        repeat {
            found = try await glasses(under: adapterPath, services: services)
            seen(found)
            try await Task.sleep(for: .milliseconds(500))
        } while ContinuousClock.now < deadline
        return found
    }

    /// The glasses BlueZ knows of now, nearest first.
    func glasses(under adapterPath: String, services: [GlassesServices]) async throws -> [DiscoveredGlasses] {
        try await BlueZ.objects(bus).compactMap { path, interfaces -> DiscoveredGlasses? in
            guard path.hasPrefix(adapterPath + "/"), let device = interfaces[BlueZ.device] else { return nil }
            let name = device["Name"]?.string ?? device["Alias"]?.string ?? ""
            let uuids = (device["UUIDs"]?.strings ?? []).map { $0.lowercased() }
            guard let kind = services.first(where: { $0.isDeviceName(name) || $0.advertised.contains(where: uuids.contains) })?.kind else { return nil }
            return DiscoveredGlasses(
                kind: kind, address: device["Address"]?.string ?? "", name: name, rssi: device["RSSI"]?.integer,
                paired: device["Paired"]?.bool ?? false, path: path
            )
        }
        .sorted { ($0.rssi ?? -200) > ($1.rssi ?? -200) }
    }
}
