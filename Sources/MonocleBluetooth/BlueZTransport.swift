import Foundation
import Monocle

/// Monocle over Bluetooth LE on Linux, through BlueZ's D-Bus API.
///
/// Connects to the device with the given address, finds the REPL and data characteristics,
/// turns their notifications on, and writes without response (`type: command`), split at the MTU.
public final class BlueZTransport: MonocleTransport {
    public let events: AsyncStream<TransportEvent>
    private let continuation: AsyncStream<TransportEvent>.Continuation
    private let bus: DBusClient
    private let address: String
    private let adapter: String
    private let link = SharedState(Link())
    private let handler: Int

    struct Link: BlueZLink {
        var device: String?
        var characteristics: [String: String] = [:] // UUID → path
        var writeLength = 0
        var connected = false
    }


    /// `address` is the glasses' Bluetooth address (as `sibyl monocle pair` stored it).
    public init(bus: DBusClient, address: String, adapter: String = "hci0") {
        self.bus = bus
        self.address = address.uppercased()
        self.adapter = adapter
        let (events, continuation) = AsyncStream<TransportEvent>.makeStream(bufferingPolicy: .unbounded)
        self.events = events
        self.continuation = continuation
        let link = self.link
        handler = link.watch(bus) { path, value in
            let characteristics = link.withLock { $0.characteristics }
            if path == characteristics[MonocleIdentifiers.serialTX] {
                continuation.yield(.received(.serial, value))
            } else if path == characteristics[MonocleIdentifiers.dataTX] {
                continuation.yield(.received(.data, value))
            }
        } outOfReach: {
            continuation.yield(.disconnected(reason: "the glasses went out of reach"))
        }
    }

    deinit {
        bus.removeHandler(handler)
    }

    public func connect() async throws {
        do {
            guard let device = try await BlueZ.knownDevice(bus, adapter: adapter, address: address)?.path else {
                throw MonocleError.transport("no Monocle with the address \(address) is known to BlueZ; is it on and near?")
            }
            try await BlueZ.connect(bus, device: device)
            let wanted = [MonocleIdentifiers.serialRX, MonocleIdentifiers.serialTX, MonocleIdentifiers.dataRX, MonocleIdentifiers.dataTX]
            let characteristics = try await BlueZ.characteristics(bus, under: device, wanted: wanted, services: "the glasses' REPL and data services")
            for uuid in [MonocleIdentifiers.serialTX, MonocleIdentifiers.dataTX] {
                if let path = characteristics.paths[uuid] { try await bus.call(BlueZ.service, path, BlueZ.characteristic, "StartNotify") }
            }
            link.withLock {
                $0 = Link(device: device, characteristics: characteristics.paths, writeLength: characteristics.writeLength, connected: true)
            }
            continuation.yield(.connected(maximumWriteLength: characteristics.writeLength))
        } catch let error as DBusError {
            throw MonocleError.transport(error.message)
        }
    }

    public func write(_ bytes: Data, to channel: MonocleChannel) async throws {
        let current = link.withLock { $0 }
        guard current.connected, let path = current.characteristics[channel == .serial ? MonocleIdentifiers.serialRX : MonocleIdentifiers.dataRX] else {
            throw MonocleError.notConnected
        }
        for piece in bytes.pieces(of: current.writeLength) {
            // Without response, back to back, in order: BlueZ queues them on the link.
            try await bus.call(BlueZ.service, path, BlueZ.characteristic, "WriteValue",
                               [.bytes(piece), .options(["type": .string("command")])], expectReply: false)
        }
    }

    public func disconnect() async {
        if await link.disconnect(on: bus) { continuation.yield(.disconnected(reason: "disconnected by Sibyl")) }
    }
}
