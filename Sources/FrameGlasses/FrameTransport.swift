import Foundation

/// What a Frame link reports.
public enum FrameTransportEvent: Sendable, Equatable {
    /// Notifications are on and the MTU is known (Frame offers 247; 23 when no exchange happened).
    case connected(mtu: Int)
    /// One notification from Frame, as it came (data ones start with 0x01).
    case received(Data)
    /// The link is gone (Frame reset, slept, walked out of range, or the transport was closed).
    case disconnected(reason: String)
}

/// Carries bytes to and from Frame glasses: Bluetooth LE, the emulator, or a browser relay.
///
/// Unlike Monocle's, a Frame write is never split: each one is routed on the device by its first
/// byte, so the caller sizes it (``FrameLimits``) and the transport writes it whole, with response.
public protocol FrameTransport: Sendable {
    /// Every link event, in order. The stream stays open across reconnections.
    var events: AsyncStream<FrameTransportEvent> { get }
    /// Connects (or reconnects); `events` reports `.connected` when the link is ready.
    func connect() async throws
    /// Writes one packet, whole, and returns when the link took it.
    func write(_ bytes: Data) async throws
    /// Drops the link; `events` reports `.disconnected`.
    func disconnect() async
}

/// Why talking to Frame failed.
public enum FrameError: Error, Sendable, Equatable, LocalizedError {
    case notConnected
    case disconnected(String)
    case timeout(waitingFor: String, after: Duration)
    /// Lua on the glasses raised an error.
    case lua(command: String, error: String)
    case transport(String)
    case appNotRunning

    public var errorDescription: String? {
        switch self {
        case .notConnected: "Frame is not connected."
        case .disconnected(let reason): "The link to Frame was lost: \(reason)."
        case .timeout(let what, let after): "Frame did not answer within \(after) (waiting for \(what))."
        case .lua(let command, let error): "Frame's Lua failed on \(command.prefix(60)): \(error)"
        case .transport(let detail): "The Bluetooth link failed: \(detail)."
        case .appNotRunning: "Sibyl's app is not running on Frame yet."
        }
    }
}
