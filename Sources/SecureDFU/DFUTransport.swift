public import Foundation

/// What a link to the DFU bootloader reports.
public enum DFUTransportEvent: Sendable, Equatable {
    /// The DFU service is found and the control point's notifications are on.
    case connected(maximumWriteLength: Int)
    /// One control-point notification.
    case notification(Data)
    case disconnected(reason: String)
}

/// Carries Secure DFU to glasses in their bootloader (`DfuTarg`): Bluetooth LE, or the emulator.
///
/// The bootloader is a device of its own (its own name, service and, on real glasses, address), so
/// `connect` finds it afresh each time. `events` stays open across reconnections.
public protocol DFUTransport: Sendable {
    var events: AsyncStream<DFUTransportEvent> { get }
    /// Whether a `DfuTarg` is in reach now (seen advertising), without connecting to it.
    func bootloaderInReach() async -> Bool
    /// Finds `DfuTarg` and connects; `events` reports `.connected` when the link is ready.
    func connect() async throws
    /// Writes a request to the control point (with response).
    func writeControl(_ bytes: Data) async throws
    /// Writes one piece of an object to the packet characteristic (without response); at most the link's write length.
    func writePacket(_ bytes: Data) async throws
    func disconnect() async
}

extension Data {
    /// The bytes in pieces of at most `length` (the last may be shorter): how a transport splits a
    /// write (DFU's packets, Monocle's serial and data writes), and how glasses split their output.
    public func pieces(of length: Int) -> [Data] {
        precondition(length > 0, "a piece must hold at least one byte")
        return stride(from: startIndex, to: endIndex, by: length).map { start in
            Data(self[start..<Swift.min(start + length, endIndex)])
        }
    }
}
