import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import Monocle
import NIOCore

/// The WebSocket where a browser page with Web Bluetooth carries Monocle's bytes, as routes any
/// Hummingbird server can mount: each browser connection becomes a `RelayTransport` handed to a
/// session (which runs the controller on it); the session ends when the browser goes.
public enum MonocleRelay {
    /// The path browsers connect to on the stand-alone relay server.
    public static let path = "/monocle"

    /// Carries one browser connection's messages to and from a transport until the browser leaves.
    public static func carry(
        inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, logger: Logger, session: @escaping @Sendable (RelayTransport) async -> Void
    ) async throws {
        let transport = RelayTransport { message in
            if let binary = message.binary {
                try await outbound.write(.binary(ByteBuffer(data: binary)))
            } else if let text = message.text {
                try await outbound.write(.text(text))
            }
        }
        let running = Task { await session(transport) }
        defer {
            transport.browserLeft()
            running.cancel()
        }
        for try await message in inbound.messages(maxSize: 1 << 16) {
            do {
                switch message {
                case .binary(let buffer): transport.receive(try RelayMessage(binary: Data(buffer: buffer)))
                case .text(let text): transport.receive(try RelayMessage(text: text))
                }
            } catch {
                logger.warning("\(error.localizedDescription)")
            }
        }
    }
}

extension RouterMethods where Context: WebSocketRequestContext {
    /// Adds the Monocle relay WebSocket at `path`; each browser that connects gets a session.
    @discardableResult
    public func addMonocleRelay(at path: RouterPath, session: @escaping @Sendable (RelayTransport) async -> Void) -> Self {
        addMonocleRelay(at: path) { transport, _ in await session(transport) }
    }

    /// Adds the Monocle relay WebSocket at `path`: `shouldUpgrade` may refuse a connection before
    /// it becomes a WebSocket; each browser that connects gets a session, told the request context
    /// it came with (who is calling, once a middleware has checked).
    @discardableResult
    public func addMonocleRelay(
        at path: RouterPath,
        shouldUpgrade: @escaping @Sendable (Request, Context) async throws -> RouterShouldUpgrade = { _, _ in .upgrade([:]) },
        session: @escaping @Sendable (RelayTransport, Context) async -> Void
    ) -> Self {
        ws(path, shouldUpgrade: shouldUpgrade) { inbound, outbound, context in
            let requestContext = context.requestContext
            try await MonocleRelay.carry(inbound: inbound, outbound: outbound, logger: context.logger) { transport in
                await session(transport, requestContext)
            }
        }
    }
}
