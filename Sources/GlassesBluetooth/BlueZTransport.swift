public import Foundation
public import Glasses

/// Glasses of either kind over Bluetooth LE on Linux, through BlueZ's D-Bus API, given their services.
///
/// Bonds first when the glasses need it (Frame: Just Works, and Frame keeps one bond at a time),
/// connects to the device with the given address, finds each channel's characteristics, turns
/// their notifications on, and writes as each channel's writes go: split at the MTU and sent
/// without response (`type: command`, Monocle's), or whole with response (`type: request`, Frame's).
public final class BlueZTransport: GlassesTransport {
    public let events: AsyncStream<GlassesTransportEvent>
    private let continuation: AsyncStream<GlassesTransportEvent>.Continuation
    private let bus: DBusClient
    private let address: String
    private let adapter: String
    /// What the glasses offer.
    public let services: GlassesServices
    private let link = SharedState(Link())
    private let handler: Int

    struct Link: BlueZLink {
        var device: String?
        /// Each channel's host → glasses characteristic.
        var write: [GlassesChannel: String] = [:]
        /// The channel of each glasses → host characteristic.
        var notify: [String: GlassesChannel] = [:]
        var writeLength = 0
        var connected = false
    }

    /// `address` is the glasses' Bluetooth address (as `sibyl glasses pair` stored it).
    public init(bus: DBusClient, address: String, services: GlassesServices, adapter: String = "hci0") {
        self.bus = bus
        self.address = address.uppercased()
        self.adapter = adapter
        self.services = services
        let (events, continuation) = AsyncStream<GlassesTransportEvent>.makeStream(bufferingPolicy: .unbounded)
        self.events = events
        self.continuation = continuation
        let link = self.link
        handler = link.watch(bus) { path, value in
            if let channel = link.withLock({ $0.notify[path] }) { continuation.yield(.received(channel, value)) }
        } outOfReach: {
            continuation.yield(.disconnected(reason: "the glasses went out of reach"))
        }
    }

    deinit {
        bus.removeHandler(handler)
    }

    public func connect() async throws {
        let name = services.kind.displayName
        do {
            guard let (device, properties) = try await BlueZ.knownDevice(bus, adapter: adapter, address: address) else {
                throw GlassesError.transport("no \(name) with the address \(address) is known to BlueZ; is it on and near?")
            }
            if services.pairsFirst, properties["Paired"]?.bool != true { try await pair(device) }
            try await BlueZ.connect(bus, device: device)
            let found = try await BlueZ.characteristics(bus, under: device, wanted: services.characteristicUUIDs, services: "the \(name)'s services")
            var write: [GlassesChannel: String] = [:]
            var notify: [String: GlassesChannel] = [:]
            for channel in services.channels {
                guard let host = found.paths[channel.write], let glasses = found.paths[channel.notify] else {
                    throw GlassesError.transport("the \(name)'s service has no \(channel.channel.rawValue) characteristics")
                }
                write[channel.channel] = host
                notify[glasses] = channel.channel
                try await bus.call(BlueZ.service, glasses, BlueZ.characteristic, "StartNotify")
            }
            link.withLock { $0 = Link(device: device, write: write, notify: notify, writeLength: found.writeLength, connected: true) }
            continuation.yield(.connected(maximumWriteLength: found.writeLength))
        } catch let error as DBusError {
            throw GlassesError.transport(error.message)
        }
    }

    /// Bonds with the glasses (Just Works); one bonded meanwhile is fine.
    private func pair(_ device: String) async throws {
        do {
            try await bus.call(BlueZ.service, device, BlueZ.device, "Pair")
        } catch let error as DBusError where error.name == "org.bluez.Error.AlreadyExists" {
            // Paired meanwhile.
        } catch let error as DBusError where ["org.bluez.Error.AuthenticationFailed", "org.bluez.Error.AuthenticationRejected", "org.bluez.Error.ConnectionAttemptFailed"].contains(error.name) {
            throw GlassesError.transport(
                "the \(services.kind.displayName) refused to pair (\(error.message)). It keeps one bond at a time: if it was paired with another phone or computer, "
                    + "un-pair it there or reset its bond (on Frame: press the case button while it charges), then try again"
            )
        }
    }

    public func write(_ bytes: Data, to channel: GlassesChannel) async throws {
        let current = link.withLock { $0 }
        guard current.connected, let path = current.write[channel] else { throw GlassesError.notConnected }
        for piece in try channel.writes(of: bytes, maximumWriteLength: current.writeLength) {
            if channel.writesWhole {
                do {
                    try await bus.call(BlueZ.service, path, BlueZ.characteristic, "WriteValue", [.bytes(piece), .options(["type": .string("request")])])
                } catch let error as DBusError {
                    throw GlassesError.transport(error.message)
                }
            } else {
                // Without response, back to back, in order: BlueZ queues them on the link.
                try await bus.call(BlueZ.service, path, BlueZ.characteristic, "WriteValue",
                                   [.bytes(piece), .options(["type": .string("command")])], expectReply: false)
            }
        }
    }

    public func disconnect() async {
        if await link.disconnect(on: bus) { continuation.yield(.disconnected(reason: "disconnected by Sibyl")) }
    }
}
