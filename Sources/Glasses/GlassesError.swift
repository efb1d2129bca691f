public import Foundation

/// Why talking to the glasses failed.
public enum GlassesError: Error, Sendable, Equatable, LocalizedError {
    /// There is no link.
    case notConnected
    /// The link was lost, and why.
    case disconnected(String)
    /// The glasses did not answer in time.
    case timeout(waitingFor: String, after: Duration)
    /// Code the glasses ran failed there: a MicroPython traceback, a Lua error.
    case failedOnGlasses(command: String, error: String)
    /// The glasses answered something that is not a reply.
    case unexpectedReply(waitingFor: String, got: String)
    /// The link itself failed (Bluetooth, the relay, the emulator).
    case transport(String)
    /// The device app does not run yet.
    case appNotRunning
    /// The app on these glasses cannot stream its microphone for live captions.
    case captionsUnsupported

    public var errorDescription: String? {
        switch self {
        case .notConnected: "The glasses are not connected."
        case .disconnected(let reason): "The glasses disconnected (\(reason))."
        case .timeout(let what, let after): "The glasses did not answer in time (waited \(after) for \(what))."
        case .failedOnGlasses(let command, let error): "The glasses could not run `\(command.prefix(60))`: \(GlassesError.lastLine(of: error))"
        case .unexpectedReply(let what, let got): "Unexpected reply from the glasses while waiting for \(what): \(got.prefix(120).debugDescription)"
        case .transport(let reason): "Bluetooth error: \(reason)"
        case .appNotRunning: "Sibyl's app is not running on the glasses yet."
        case .captionsUnsupported: "The app on these glasses cannot stream their microphone for live captions."
        }
    }

    /// The last line of a traceback: the error itself.
    public static func lastLine(of traceback: String) -> String {
        traceback.split(whereSeparator: \.isNewline).last.map(String.init) ?? traceback
    }
}
