import Foundation
import SecureDFU

/// Connects a Secure DFU client to a `MonocleEmulator` in its bootloader, as Bluetooth would connect
/// it to real glasses advertising `DfuTarg`.
public final class EmulatorDFUTransport: DFUTransport {
    public let events: AsyncStream<DFUTransportEvent>
    private let continuation: AsyncStream<DFUTransportEvent>.Continuation
    private let emulator: MonocleEmulator

    public init(emulator: MonocleEmulator) {
        self.emulator = emulator
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    public func bootloaderInReach() async -> Bool {
        await emulator.bootloader != nil
    }

    public func connect() async throws {
        await emulator.attachDFU(continuation)
        try await emulator.connectDFUClient()
    }

    public func writeControl(_ bytes: Data) async throws {
        try await emulator.dfuControl(bytes)
    }

    public func writePacket(_ bytes: Data) async throws {
        try await emulator.dfuPacket(bytes)
    }

    public func disconnect() async {
        await emulator.disconnectDFUClient()
    }
}
