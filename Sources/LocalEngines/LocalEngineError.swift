import Foundation
import SibylCore

/// Problems running a local engine.
public enum LocalEngineError: Error, LocalizedError, Equatable {
    case notInstalled(component: String, missing: String)
    /// A resident engine's server (`server`, installed by `component`) exited while starting.
    case serverDied(server: String, component: String, status: String, logTail: String, log: String)
    case startupTimedOut(server: String, component: String, seconds: Int, log: String)
    case noFreePort

    public var errorDescription: String? {
        switch self {
        case .notInstalled(let component, let missing):
            "The local \(component) engine is not installed (missing: \(missing))."
        case .serverDied(let server, _, let status, let tail, let log):
            "\(server) stopped while starting (\(status)):\n\(tail)\nLog: \(log)"
        case .startupTimedOut(let server, _, let seconds, let log):
            "\(server) did not become ready within \(seconds) s. Log: \(log)"
        case .noFreePort:
            "No free local port could be found for the engine."
        }
    }

    public var recoverySuggestion: String? {
        switch self {
        case .notInstalled(let component, _):
            "Install the \(component) component, or configure a remote provider for it."
        case .serverDied(_, let component, _, _, _), .startupTimedOut(_, let component, _, _):
            "Check the log; reinstalling the \(component) component may help."
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
        case .serverDied(_, let component, _, _, _), .startupTimedOut(_, let component, _, _): .install(component: component)
        case .noFreePort: nil
        }
    }
}
