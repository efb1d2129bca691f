import Foundation
import Monocle

/// Connects Sibyl's controller to a `MonocleEmulator`, as Bluetooth would connect it to real glasses.
public final class EmulatorTransport: MonocleTransport {
    public let events: AsyncStream<TransportEvent>
    private let continuation: AsyncStream<TransportEvent>.Continuation
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

    public func write(_ bytes: Data, to channel: MonocleChannel) async throws {
        // Split at the MTU and send back to back, without response, as the phone apps do.
        for piece in bytes.pieces(of: maximumWriteLength) {
            try await emulator.clientWrite(piece, to: channel)
        }
    }

    public func disconnect() async {
        await emulator.disconnectClient()
    }
}
