import FrameGlasses
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import Monocle
import NIOCore

/// The glasses one relay socket carries: the page's first `connected` message says which.
public enum RelayedGlasses: Sendable {
    case monocle(RelayTransport)
    case frame(FrameRelayTransport)

    /// `monocle` or `frame`.
    public var kind: String {
        switch self {
        case .monocle: "monocle"
        case .frame: "frame"
        }
    }

    /// A message from the browser, for the transport.
    func receive(_ message: RelayMessage) {
        switch self {
        case .monocle(let transport): transport.receive(message)
        case .frame(let transport): transport.receive(message)
        }
    }

    /// The browser closed the socket.
    func browserLeft() {
        switch self {
        case .monocle(let transport): transport.browserLeft()
        case .frame(let transport): transport.browserLeft()
        }
    }
}

/// The WebSocket where a browser page with Web Bluetooth carries Monocle's or Frame's bytes (see
/// `RelayMessage`). Unlike `MonocleRelay`, which assumes a Monocle, it waits for the page's first
/// `connected` message and only then makes the transport of that kind and starts the session on it;
/// what the page sends before is skipped.
public enum GlassesRelay {
    /// Carries one browser connection's messages to and from the transport of the kind it reports,
    /// until the browser leaves.
    public static func carry(
        inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, logger: Logger, session: @escaping @Sendable (RelayedGlasses) async -> Void
    ) async throws {
        let send: @Sendable (RelayMessage) async throws -> Void = { message in
            if let binary = message.binary {
                try await outbound.write(.binary(ByteBuffer(data: binary)))
            } else if let text = message.text {
                try await outbound.write(.text(text))
            }
        }
        var glasses: RelayedGlasses?
        var running: Task<Void, Never>?
        defer {
            glasses?.browserLeft()
            running?.cancel()
        }
        for try await frame in inbound.messages(maxSize: 1 << 16) {
            do {
                let message = switch frame {
                case .binary(let buffer): try RelayMessage(binary: Data(buffer: buffer))
                case .text(let text): try RelayMessage(text: text)
                }
                if glasses == nil {
                    let chosen: RelayedGlasses
                    switch message {
                    case .connected: chosen = .monocle(RelayTransport(send: send))
                    case .frameConnected: chosen = .frame(FrameRelayTransport(send: send))
                    default:
                        logger.debug("skipping a relay message sent before the glasses were connected")
                        continue
                    }
                    glasses = chosen
                    running = Task { await session(chosen) }
                }
                glasses?.receive(message)
            } catch {
                logger.warning("\(error.localizedDescription)")
            }
        }
    }
}

extension RouterMethods where Context: WebSocketRequestContext {
    /// Adds the glasses relay WebSocket at `path`, for Monocle and Frame alike: `shouldUpgrade` may
    /// refuse a connection before it becomes a WebSocket; each browser that reports connected glasses
    /// gets a session of their kind, told the request context it came with.
    @discardableResult
    public func addGlassesRelay(
        at path: RouterPath,
        shouldUpgrade: @escaping @Sendable (Request, Context) async throws -> RouterShouldUpgrade = { _, _ in .upgrade([:]) },
        session: @escaping @Sendable (RelayedGlasses, Context) async -> Void
    ) -> Self {
        ws(path, shouldUpgrade: shouldUpgrade) { inbound, outbound, context in
            let requestContext = context.requestContext
            try await GlassesRelay.carry(inbound: inbound, outbound: outbound, logger: context.logger) { glasses in
                await session(glasses, requestContext)
            }
        }
    }
}
