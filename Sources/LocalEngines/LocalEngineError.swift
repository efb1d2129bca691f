import Foundation
import SibylCore

/// Problems running a local engine.
public enum LocalEngineError: Error, LocalizedError, Equatable {
    case notInstalled(component: String, missing: String)
    case serverDied(status: String, logTail: String, log: String)
    case startupTimedOut(seconds: Int, log: String)
    case noFreePort

    public var errorDescription: String? {
        switch self {
        case .notInstalled(let component, let missing):
            "The local \(component) engine is not installed (missing: \(missing))."
        case .serverDied(let status, let tail, let log):
            "llama-server stopped while starting (\(status)):\n\(tail)\nLog: \(log)"
        case .startupTimedOut(let seconds, let log):
            "llama-server did not become ready within \(seconds) s. Log: \(log)"
        case .noFreePort:
            "No free local port could be found for the engine."
        }
    }

    public var recoverySuggestion: String? {
        switch self {
        case .notInstalled(let component, _):
            "Install the \(component) component, or configure a remote provider for it."
        case .serverDied, .startupTimedOut:
            "Check the log; reinstalling the chat component may help."
        case .noFreePort:
            nil
        }
    }
}

extension LocalEngineError: RemedyProviding {
    /// A missing or broken engine is (re)installed.
    public var remedy: Remedy? {
        switch self {
        case .notInstalled(let component, _): .install(component: component)
        case .serverDied, .startupTimedOut: .install(component: "chat")
        case .noFreePort: nil
        }
    }
}
