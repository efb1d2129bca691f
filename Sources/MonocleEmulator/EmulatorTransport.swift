import Foundation
import Glasses

/// Connects Sibyl's connection to a `MonocleEmulator`, as Bluetooth would connect it to real glasses.
public final class EmulatorTransport: GlassesTransport {
    public let events: AsyncStream<GlassesTransportEvent>
    private let continuation: AsyncStream<GlassesTransportEvent>.Continuation
    private let emulator: MonocleEmulator
    private let maximumWriteLength: Int

    public init(emulator: MonocleEmulator, maximumWriteLength: Int = 253) {
        self.emulator = emulator
        self.maximumWriteLength = maximumWriteLength
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    public func connect() async throws {
        await emulator.attach(continuation)
        try await emulator.connectClient()
    }

    public func write(_ bytes: Data, to channel: GlassesChannel) async throws {
        // Split at the MTU and send back to back, without response, as the phone apps do.
        for piece in try channel.writes(of: bytes, maximumWriteLength: maximumWriteLength) {
            try await emulator.clientWrite(piece, to: channel)
        }
    }

    public func disconnect() async {
        await emulator.disconnectClient()
    }
}
