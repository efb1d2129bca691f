import Foundation
import Synchronization

/// A transport whose bytes a browser carries over Web Bluetooth (see `RelayMessage`).
///
/// The WebSocket side feeds what the browser says into `receive(_:)` and sends what `send` is given.
public final class RelayTransport: MonocleTransport {
    public let events: AsyncStream<TransportEvent>
    private let continuation: AsyncStream<TransportEvent>.Continuation
    private let send: @Sendable (RelayMessage) async throws -> Void
    private let writeLength = Mutex<Int?>(nil)

    /// `send` delivers a message to the browser.
    public init(send: @escaping @Sendable (RelayMessage) async throws -> Void) {
        self.send = send
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    /// A message from the browser.
    public func receive(_ message: RelayMessage) {
        switch message {
        case .bytes(let channel, let payload):
            continuation.yield(.received(channel, payload))
        case .connected(let length):
            writeLength.withLock { $0 = length }
            continuation.yield(.connected(maximumWriteLength: length))
        case .disconnected(let reason):
            lost(reason)
        case .connectRequest, .disconnectRequest:
            break // Sibyl's requests; a browser does not send them
        case .frameBytes, .frameConnected:
            break // Frame's; a relay that carries Monocle's glasses has no use for them
        }
    }

    /// The browser's connection closed: the glasses are out of reach.
    public func browserLeft() {
        lost("the browser closed the relay")
        continuation.finish()
    }

    public func connect() async throws {
        do {
            try await send(.connectRequest)
        } catch {
            throw MonocleError.transport("the browser relay is gone: \(error.localizedDescription)")
        }
    }

    public func write(_ bytes: Data, to channel: MonocleChannel) async throws {
        guard let length = writeLength.withLock({ $0 }) else { throw MonocleError.notConnected }
        for piece in bytes.pieces(of: length) {
            do {
                try await send(.bytes(channel, piece))
            } catch {
                throw MonocleError.disconnected("the browser relay is gone")
            }
        }
    }

    public func disconnect() async {
        try? await send(.disconnectRequest)
        lost("disconnected by Sibyl")
    }

    private func lost(_ reason: String) {
        let wasConnected = writeLength.withLock { length -> Bool in
            defer { length = nil }
            return length != nil
        }
        if wasConnected { continuation.yield(.disconnected(reason: reason)) }
    }
}
