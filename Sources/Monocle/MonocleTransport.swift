import Foundation

/// The two byte channels a Monocle offers.
public enum MonocleChannel: String, Sendable, Hashable {
    /// The MicroPython REPL (Nordic UART-style service).
    case serial
    /// The device app's raw data service.
    case data
}

/// What a transport reports about the link.
public enum TransportEvent: Sendable, Equatable {
    /// Both services are discovered and notifications are on; `maximumWriteLength` is the ATT MTU − 3.
    case connected(maximumWriteLength: Int)
    /// One notification from the glasses.
    case received(MonocleChannel, Data)
    /// The link is gone (the glasses reset, walked out of range, or the transport was closed).
    case disconnected(reason: String)
}

/// Carries bytes to and from Monocle glasses: Bluetooth LE, the emulator, or a browser relay.
///
/// Implementations deliver every notification in order through `events`, and split each write into
/// pieces of at most `maximumWriteLength` bytes sent back to back without response, as the phone apps do.
public protocol MonocleTransport: Sendable {
    /// Every link event, in order. The stream stays open across reconnections.
    var events: AsyncStream<TransportEvent> { get }
    /// Connects (or reconnects); `events` reports `.connected` when the link is ready.
    func connect() async throws
    /// Writes bytes to a channel, split at the MTU.
    func write(_ bytes: Data, to channel: MonocleChannel) async throws
    /// Drops the link; `events` reports `.disconnected`.
    func disconnect() async
}

/// Why talking to the glasses failed.
public enum MonocleError: Error, Sendable, Equatable, LocalizedError {
    case notConnected
    case disconnected(String)
    case timeout(waitingFor: String, after: Duration)
    case replError(command: String, traceback: String)
    case unexpectedReply(waitingFor: String, got: String)
    case updateFailed(String)
    case transport(String)

    public var errorDescription: String? {
        switch self {
        case .notConnected: "The glasses are not connected."
        case .disconnected(let reason): "The glasses disconnected (\(reason))."
        case .timeout(let what, let after): "The glasses did not answer in time (waited \(after) for \(what))."
        case .replError(let command, let traceback): "The glasses could not run `\(command.prefix(60))`: \(MonocleError.lastLine(of: traceback))"
        case .unexpectedReply(let what, let got): "Unexpected reply from the glasses while waiting for \(what): \(got.prefix(120).debugDescription)"
        case .updateFailed(let reason): "The update failed: \(reason)"
        case .transport(let reason): "Bluetooth error: \(reason)"
        }
    }

    static func lastLine(of traceback: String) -> String {
        traceback.split(whereSeparator: \.isNewline).last.map(String.init) ?? traceback
    }
}

extension Data {
    /// The bytes in pieces of at most `length` (the last may be shorter): how every transport
    /// splits a write, and how the glasses split their output into notifications.
    public func pieces(of length: Int) -> [Data] {
        precondition(length > 0, "a piece must hold at least one byte")
        return stride(from: startIndex, to: endIndex, by: length).map { start in
            Data(self[start..<Swift.min(start + length, endIndex)])
        }
    }
}
