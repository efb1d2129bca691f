import Foundation
import Glasses
import SibylCore
public import Hummingbird
public import HummingbirdWebSocket
public import Logging
import NIOCore

/// The WebSocket where a browser page with Web Bluetooth carries Monocle's or Frame's bytes (see
/// `RelayMessage`), as routes any Hummingbird server can mount. It waits for the page's first
/// `connected` message, then makes a ``RelayTransport`` of the kind it names and starts the session
/// on it (what the page sends before is skipped); the session ends when the browser goes.
public enum GlassesRelay {
    /// The path browsers connect to on the stand-alone relay server.
    public static let path = "/monocle"

    /// Carries one browser connection's messages to and from the transport of the kind it reports,
    /// until the browser leaves.
    public static func carry(
        inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, logger: Logger, session: @escaping @Sendable (RelayTransport) async -> Void
    ) async throws {
        let send: @Sendable (RelayMessage) async throws -> Void = { message in
            if let binary = message.binary {
                try await outbound.write(.binary(ByteBuffer(data: binary)))
            } else if let text = message.text {
                try await outbound.write(.text(text))
            }
        }
        var transport: RelayTransport?
        var running: Task<Void, Never>?
        var failure: (any Error)?
        do {
            for try await frame in inbound.messages(maxSize: 1 << 16) {
                do {
                    let message = switch frame {
                    case .binary(let buffer): try RelayMessage(binary: Data(buffer: buffer))
                    case .text(let text): try RelayMessage(text: text)
                    }
                    if transport == nil {
                        let kind: GlassesKind
                        switch message {
                        case .connected: kind = .monocle
                        case .frameConnected: kind = .frame
                        default:
                            logger.debug("skipping a relay message sent before the glasses were connected")
                            continue
                        }
                        let chosen = RelayTransport(kind: kind, send: send)
                        transport = chosen
                        running = Task { await session(chosen) }
                    }
                    await transport?.receive(message)
                } catch {
                    logger.warning("\(error.localizedDescription)")
                }
            }
        } catch {
            failure = error
        }
        await transport?.browserLeft()
        running?.cancel()
        if let failure { throw failure }
    }
}

extension RouterMethods where Context: WebSocketRequestContext {
    /// Adds the glasses relay WebSocket at `path`, for Monocle and Frame alike: `shouldUpgrade` may
    /// refuse a connection before it becomes a WebSocket; each browser that reports connected glasses
    /// gets a session of their kind, told the request and the request context it came with.
    @discardableResult
    public func addGlassesRelay(
        at path: RouterPath,
        shouldUpgrade: @escaping @Sendable (Request, Context) async throws -> RouterShouldUpgrade = { _, _ in .upgrade([:]) },
        session: @escaping @Sendable (RelayTransport, Request, Context) async -> Void
    ) -> Self {
        ws(path, shouldUpgrade: shouldUpgrade) { inbound, outbound, context in
            let requestContext = context.requestContext
            let request = context.request
            try await GlassesRelay.carry(inbound: inbound, outbound: outbound, logger: context.logger) { transport in
                await session(transport, request, requestContext)
            }
        }
    }
}
