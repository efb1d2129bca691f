public import Foundation
import SecureDFU

/// A byte channel of the glasses.
public enum GlassesChannel: String, Sendable, Hashable, CaseIterable {
    /// Monocle's MicroPython REPL (a Nordic UART-style service).
    case serial
    /// Monocle's raw data service, which its device app talks over.
    case data
    /// Frame's one characteristic pair: Lua chunks, data and the break/reset signals, routed on the
    /// device by their first byte.
    case frame

    /// Whether a write on this channel goes whole, with response (Frame: the device routes each write
    /// by its first byte, so the caller sizes it), rather than split at the link's write length and
    /// sent back to back without response (Monocle's, as the phone apps write).
    public var writesWhole: Bool { self == .frame }

    /// The writes that carry `bytes` on this channel over a link whose writes hold at most
    /// `maximumWriteLength` bytes: pieces of that length, or the bytes whole when they fit.
    public func writes(of bytes: Data, maximumWriteLength: Int) throws(GlassesError) -> [Data] {
        guard writesWhole else { return bytes.pieces(of: max(maximumWriteLength, 1)) }
        guard bytes.count <= maximumWriteLength else {
            throw .transport("a write of \(bytes.count) bytes does not fit the link (MTU \(maximumWriteLength + 3))")
        }
        return [bytes]
    }
}

/// What a transport reports about the link.
public enum GlassesTransportEvent: Sendable, Equatable {
    /// The glasses' services are found and notifications are on; writes hold at most
    /// `maximumWriteLength` bytes (the ATT MTU − 3).
    case connected(maximumWriteLength: Int)
    /// One notification from the glasses, as it came (Frame's data ones start with 0x01).
    case received(GlassesChannel, Data)
    /// The link is gone (the glasses reset, slept, walked out of range, or the transport was closed).
    case disconnected(reason: String)
}

/// Carries bytes to and from glasses of either kind: Bluetooth LE, an emulator, or a browser relay.
///
/// Implementations deliver every notification in order through `events`, and write as each
/// channel asks (``GlassesChannel/writesWhole``): Monocle's serial and data writes are split into
/// pieces of at most the link's write length, sent back to back without response; a Frame write
/// goes whole, with response, and one that does not fit the link is refused.
public protocol GlassesTransport: Sendable {
    /// Every link event, in order. The stream stays open across reconnections.
    var events: AsyncStream<GlassesTransportEvent> { get }
    /// Connects (or reconnects); `events` reports `.connected` when the link is ready.
    func connect() async throws
    /// Writes bytes to a channel, as the channel's writes go.
    func write(_ bytes: Data, to channel: GlassesChannel) async throws
    /// Drops the link; `events` reports `.disconnected`.
    func disconnect() async
}
