import Foundation
public import Glasses
public import SibylCore
import Hummingbird
import HummingbirdWebSocket
public import Logging
import NIOCore
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
public final class RelayGlassesServer: Sendable {
    /// The path a peer of offered Monocle glasses connects to.
    public static let path = GlassesRelay.path
    /// The path a peer of offered Frame glasses connects to.
    public static let framePath = "/frame"
    private let server: LoopbackWebSocketServer
    private let forwarding: Task<Void, Never>

    /// The port the server listens on.
    public var port: Int { server.port }
    /// The path this server's peer connects to (`/monocle` or `/frame`).
    public let offeredPath: String
    /// The URL a peer connects to.
    public var url: String { "ws://127.0.0.1:\(port)\(offeredPath)" }

    private init(server: LoopbackWebSocketServer, forwarding: Task<Void, Never>, path: String) {
        self.server = server
        self.forwarding = forwarding
        offeredPath = path
    }

    /// Offers `glasses` of `kind` on loopback (`port` 0 picks a free one): Monocle at `/monocle`
    /// (`connected` with the write length, channels 1 and 2), Frame at `/frame` (`connected` with
    /// `"kind":"frame"` and the MTU, whole packets on channel 3).
    public static func start(
        glasses: any GlassesTransport,
        kind: GlassesKind,
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
        return try await start(offered, path: kind == .frame ? framePath : path, port: port, logger: logger)
    }

    /// Glasses of either kind, as relay messages.
    private struct Offered: Sendable {
        var events: AsyncStream<RelayMessage>
        var connect: @Sendable () async throws -> Void
        /// Writes the bytes a message carries; false when it carries none for these glasses.
        var write: @Sendable (RelayMessage) async throws -> Bool
        var disconnect: @Sendable () async -> Void
    }

    private static func start(_ glasses: Offered, path: String, port: Int, logger: Logger) async throws -> RelayGlassesServer {
        let peer = Peer()
        // One reader for the glasses' whole life: their event stream outlives each peer.
        let forwarding = Task {
            for await message in glasses.events {
                await peer.send(message)
            }
        }
        let router = Router(context: BasicWebSocketRequestContext.self)
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
            return RelayGlassesServer(server: server, forwarding: forwarding, path: path)
        } catch {
            forwarding.cancel()
            throw error
        }
    }

    /// Stops listening, closes the peer's connection and lets the glasses go.
    public func stop() async {
        await server.stop()
        forwarding.cancel()
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
