import Foundation
public import Glasses
public import SibylCore
import Hummingbird
import HummingbirdWebSocket
public import Logging
import NIOCore
public import SecureDFU
import Synchronization

/// The glasses' side of the relay, the part a Web Bluetooth page plays, for glasses reached some
/// other way: `sibyl glasses emulate --listen` offers the virtual glasses like this, so a program
/// that stands in for Bluetooth (a test driving Chromium's Bluetooth emulation, say) can carry their
/// bytes without knowing how the emulator works.
///
/// One peer at a time connects a WebSocket to `/monocle` (Monocle) or `/frame` (Frame, its bytes on
/// channel 3) and becomes the phone: the glasses connect when it arrives and are let go when it
/// leaves. It gets what a browser would send to Sibyl (`RelayMessage`: notifications as binary
/// frames, `connected` and `disconnected` as text) and sends what Sibyl would send (writes as binary
/// frames, `connect` and `disconnect` requests).
///
/// Given their bootloader too, it offers that at `/monocle/bootloader` (or `/frame/bootloader`), as
/// the bootloader is a Bluetooth device of its own: a peer there sends `{"type":"connect"}` to reach
/// it (answered `bootloaderConnected`, or `bootloaderDisconnected` with the reason while the glasses
/// are not in their bootloader), binary frames 4 (control point) and 5 (packet) to write, and gets
/// the control point's notifications as binary frames 4.
public final class RelayGlassesServer: Sendable {
    /// The path a peer of offered Monocle glasses connects to.
    public static let path = GlassesRelay.path
    /// The path a peer of offered Frame glasses connects to.
    public static let framePath = "/frame"
    private let server: LoopbackWebSocketServer
    private let forwarding: [Task<Void, Never>]

    /// The port the server listens on.
    public var port: Int { server.port }
    /// The path this server's peer connects to (`/monocle` or `/frame`).
    public let offeredPath: String
    /// The URL a peer connects to.
    public var url: String { "ws://127.0.0.1:\(port)\(offeredPath)" }

    /// The URL a peer of the glasses' bootloader connects to, when it is offered.
    public var bootloaderURL: String? { offersBootloader ? url + Self.bootloaderSuffix : nil }
    private let offersBootloader: Bool
    static let bootloaderSuffix = "/bootloader"

    private init(server: LoopbackWebSocketServer, forwarding: [Task<Void, Never>], path: String, offersBootloader: Bool) {
        self.server = server
        self.forwarding = forwarding
        offeredPath = path
        self.offersBootloader = offersBootloader
    }

    /// Offers `glasses` of `kind` on loopback (`port` 0 picks a free one): Monocle at `/monocle`
    /// (`connected` with the write length, channels 1 and 2), Frame at `/frame` (`connected` with
    /// `"kind":"frame"` and the MTU, whole packets on channel 3); and their `bootloader`, when given,
    /// at that path + `/bootloader`.
    public static func start(
        glasses: any GlassesTransport,
        kind: GlassesKind,
        bootloader: (any DFUTransport)? = nil,
        port: Int = 0,
        logger: Logger = Logger(label: "sibyl.glasses-offered")
    ) async throws -> RelayGlassesServer {
        let offered = Offered(
            events: AsyncStream { continuation in
                let forwarding = Task {
                    for await event in glasses.events {
                        switch event {
                        case .connected(let length):
                            continuation.yield(kind == .frame ? .frameConnected(mtu: length + 3) : .connected(maximumWriteLength: length))
                        case .received(let channel, let bytes): continuation.yield(.bytes(channel, bytes))
                        case .disconnected(let reason): continuation.yield(.disconnected(reason: reason))
                        }
                    }
                    continuation.finish()
                }
                continuation.onTermination = { _ in forwarding.cancel() }
            },
            connect: { try await glasses.connect() },
            write: { message in
                guard case .bytes(let channel, let bytes) = message, kind.channels.contains(channel) else { return false }
                try await glasses.write(bytes, to: channel)
                return true
            },
            disconnect: { await glasses.disconnect() }
        )
        return try await start(offered, bootloader: bootloader, path: kind == .frame ? framePath : path, port: port, logger: logger)
    }

    /// Glasses of either kind, as relay messages.
    private struct Offered: Sendable {
        var events: AsyncStream<RelayMessage>
        var connect: @Sendable () async throws -> Void
        /// Writes the bytes a message carries; false when it carries none for these glasses.
        var write: @Sendable (RelayMessage) async throws -> Bool
        var disconnect: @Sendable () async -> Void
    }

    private static func start(_ glasses: Offered, bootloader: (any DFUTransport)?, path: String, port: Int, logger: Logger) async throws -> RelayGlassesServer {
        let peer = Peer()
        // One reader for the glasses' whole life: their event stream outlives each peer.
        var forwarding = [Task {
            for await message in glasses.events {
                await peer.send(message)
            }
        }]
        let router = Router(context: BasicWebSocketRequestContext.self)
        if let bootloader { forwarding.append(offer(bootloader, at: path + bootloaderSuffix, on: router)) }
        router.get("/") { _, _ in "Sibyl's virtual glasses: connect a WebSocket to \(path)\n" }
        router.ws(RouterPath(path)) { inbound, outbound, context in
            guard peer.claim(outbound) else {
                let busy = RelayMessage.disconnected(reason: "the glasses are already connected to another peer")
                try await outbound.write(.text(busy.text ?? ""))
                return
            }
            defer { peer.release() }
            // What goes wrong with the glasses is the peer's to hear, as a browser hears it from Bluetooth.
            func connectGlasses() async {
                do {
                    try await glasses.connect()
                } catch {
                    await peer.send(.disconnected(reason: error.localizedDescription))
                }
            }
            await connectGlasses()
            do {
                for try await frame in inbound.messages(maxSize: 1 << 16) {
                    do {
                        switch frame {
                        case .binary(let buffer):
                            if try await !glasses.write(try RelayMessage(binary: Data(buffer: buffer))) {
                                context.logger.warning("a binary frame on a channel these glasses do not have")
                            }
                        case .text(let text):
                            switch try RelayMessage(text: text) {
                            case .connectRequest: await connectGlasses()
                            case .disconnectRequest: await glasses.disconnect()
                            default: context.logger.warning("a peer of the glasses may send only connect and disconnect requests")
                            }
                        }
                    } catch {
                        // A bad frame, or a write while the glasses are away: the peer goes on.
                        context.logger.warning("\(error.localizedDescription)")
                    }
                }
            } catch {
                context.logger.debug("the peer's connection failed: \(error.localizedDescription)")
            }
            // The phone went away: so does the link.
            await glasses.disconnect()
        }
        do {
            let server = try await LoopbackWebSocketServer.start(router: router, port: port, logger: logger)
            return RelayGlassesServer(server: server, forwarding: forwarding, path: path, offersBootloader: bootloader != nil)
        } catch {
            forwarding.forEach { $0.cancel() }
            throw error
        }
    }

    /// Offers the glasses' bootloader at `path`; the task forwards its events to the peer.
    private static func offer(_ bootloader: any DFUTransport, at path: String, on router: Router<BasicWebSocketRequestContext>) -> Task<Void, Never> {
        let peer = Peer()
        let forwarding = Task {
            for await event in bootloader.events {
                switch event {
                case .connected(let length): await peer.send(.bootloaderConnected(maximumWriteLength: length))
                case .notification(let bytes): await peer.send(.bootloaderBytes(.control, bytes))
                case .disconnected(let reason): await peer.send(.bootloaderDisconnected(reason: reason))
                }
            }
        }
        router.ws(RouterPath(path)) { inbound, outbound, context in
            guard peer.claim(outbound) else {
                try await outbound.write(.text(RelayMessage.bootloaderDisconnected(reason: "the bootloader is already connected to another peer").text ?? ""))
                return
            }
            defer { peer.release() }
            do {
                for try await frame in inbound.messages(maxSize: 1 << 16) {
                    do {
                        switch frame {
                        case .binary(let buffer):
                            switch try RelayMessage(binary: Data(buffer: buffer)) {
                            case .bootloaderBytes(.control, let bytes): try await bootloader.writeControl(bytes)
                            case .bootloaderBytes(.packet, let bytes): try await bootloader.writePacket(bytes)
                            default: context.logger.warning("the bootloader's peer may write only on channels 4 and 5")
                            }
                        case .text(let text):
                            switch try RelayMessage(text: text) {
                            case .connectRequest:
                                do {
                                    try await bootloader.connect()
                                } catch {
                                    await peer.send(.bootloaderDisconnected(reason: error.localizedDescription))
                                }
                            case .disconnectRequest: await bootloader.disconnect()
                            default: context.logger.warning("the bootloader's peer may send only connect and disconnect requests")
                            }
                        }
                    } catch {
                        context.logger.warning("\(error.localizedDescription)")
                    }
                }
            } catch {
                context.logger.debug("the bootloader's peer's connection failed: \(error.localizedDescription)")
            }
            await bootloader.disconnect()
        }
        return forwarding
    }

    /// Stops listening, closes the peer's connection and lets the glasses go.
    public func stop() async {
        await server.stop()
        forwarding.forEach { $0.cancel() }
    }

    /// The connected peer's writer, if one is connected.
    private final class Peer: Sendable {
        private let writer = Mutex<WebSocketOutboundWriter?>(nil)

        /// Takes the glasses for `outbound`; false while another peer has them.
        func claim(_ outbound: WebSocketOutboundWriter) -> Bool {
            writer.withLock { current in
                guard current == nil else { return false }
                current = outbound
                return true
            }
        }

        func release() {
            writer.withLock { $0 = nil }
        }

        /// Sends to the peer; with none connected, the message is lost, as a notification with no phone is.
        func send(_ message: RelayMessage) async {
            guard let outbound = writer.withLock({ $0 }) else { return }
            if let binary = message.binary {
                try? await outbound.write(.binary(ByteBuffer(data: binary)))
            } else if let text = message.text {
                try? await outbound.write(.text(text))
            }
        }
    }
}
