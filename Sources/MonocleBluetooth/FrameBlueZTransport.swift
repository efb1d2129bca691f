import FrameGlasses
import FrameProtocol
import Foundation
import Monocle

/// Frame over Bluetooth LE on Linux, through BlueZ's D-Bus API.
///
/// Frame's characteristics need an encrypted link and Frame keeps one bond at a time, so the
/// transport pairs first when BlueZ has no bond yet (Just Works), then connects, turns on
/// notifications and writes each packet whole, with response.
public final class FrameBlueZTransport: FrameTransport {
    public let events: AsyncStream<FrameTransportEvent>
    private let continuation: AsyncStream<FrameTransportEvent>.Continuation
    private let bus: DBusClient
    private let address: String
    private let adapter: String
    private let link = SharedState(Link())
    private let handler: Int

    struct Link: BlueZLink {
        var device: String?
        var write: String?
        var notify: String?
        var connected = false
    }

    /// `address` is the glasses' Bluetooth address (as `sibyl glasses pair` stored it).
    public init(bus: DBusClient, address: String, adapter: String = "hci0") {
        self.bus = bus
        self.address = address.uppercased()
        self.adapter = adapter
        let (events, continuation) = AsyncStream<FrameTransportEvent>.makeStream(bufferingPolicy: .unbounded)
        self.events = events
        self.continuation = continuation
        let link = self.link
        handler = link.watch(bus) { path, value in
            if path == link.withLock({ $0.notify }) { continuation.yield(.received(value)) }
        } outOfReach: {
            continuation.yield(.disconnected(reason: "the glasses went out of reach"))
        }
    }

    deinit {
        bus.removeHandler(handler)
    }

    public func connect() async throws {
        do {
            guard let (device, properties) = try await BlueZ.knownDevice(bus, adapter: adapter, address: address) else {
                throw FrameError.transport("no Frame with the address \(address) is known to BlueZ; is it on and near?")
            }
            if properties["Paired"]?.bool != true {
                do {
                    try await bus.call(BlueZ.service, device, BlueZ.device, "Pair")
                } catch let error as DBusError where error.name == "org.bluez.Error.AlreadyExists" {
                    // Paired meanwhile.
                } catch let error as DBusError where ["org.bluez.Error.AuthenticationFailed", "org.bluez.Error.AuthenticationRejected", "org.bluez.Error.ConnectionAttemptFailed"].contains(error.name) {
                    throw FrameError.transport(
                        "Frame refused to pair (\(error.message)). It keeps one bond at a time: if it was paired with another phone or computer, "
                            + "un-pair it there or reset its bond (press the case button while Frame charges), then try again"
                    )
                }
            }
            try await BlueZ.connect(bus, device: device)
            let characteristics = try await BlueZ.characteristics(
                bus, under: device, wanted: [FrameIdentifiers.hostToFrame, FrameIdentifiers.frameToHost], services: "Frame's service"
            )
            guard let write = characteristics.paths[FrameIdentifiers.hostToFrame], let notify = characteristics.paths[FrameIdentifiers.frameToHost] else {
                throw FrameError.transport("Frame's service has no characteristics")
            }
            try await bus.call(BlueZ.service, notify, BlueZ.characteristic, "StartNotify")
            link.withLock { $0 = Link(device: device, write: write, notify: notify, connected: true) }
            // BlueZ reports the ATT MTU as the write length + 3 (see BlueZ.characteristics).
            continuation.yield(.connected(mtu: characteristics.writeLength + 3))
        } catch let error as DBusError {
            throw FrameError.transport(error.message)
        } catch MonocleError.transport(let detail) {
            throw FrameError.transport(detail)
        }
    }

    public func write(_ bytes: Data) async throws {
        let current = link.withLock { $0 }
        guard current.connected, let path = current.write else { throw FrameError.notConnected }
        do {
            // With response: Frame routes each write whole, by its first byte.
            try await bus.call(BlueZ.service, path, BlueZ.characteristic, "WriteValue", [.bytes(bytes), .options(["type": .string("request")])])
        } catch let error as DBusError {
            throw FrameError.transport(error.message)
        }
    }

    public func disconnect() async {
        if await link.disconnect(on: bus) { continuation.yield(.disconnected(reason: "disconnected by Sibyl")) }
    }
}
