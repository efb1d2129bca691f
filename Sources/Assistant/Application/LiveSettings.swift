import Foundation
import SibylConfig
import Synchronization

/// The settings of a running Sibyl, always current: a change made through any shell (the API, or
/// `sibyl config set` in another process) applies to the next thing that reads them, without a
/// restart.
///
/// Reading is cheap: the config file is reread only when its size or modification time changed.
public final class LiveSettings: Sendable {
    private struct State {
        var settings: Settings
        var stamp: FileStamp?
    }

    private struct FileStamp: Equatable {
        var modified: Date?
        var size: Int?

        init?(_ url: URL) {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else { return nil }
            modified = attributes[.modificationDate] as? Date
            size = (attributes[.size] as? NSNumber)?.intValue
        }
    }

    private let state: Mutex<State>
    /// Where the data directory is.
    public let paths: SibylPaths
    /// The process environment the settings were read with.
    public let environment: [String: String]

    /// Reads the settings of the data directory in `paths`.
    public init(paths: SibylPaths, environment: [String: String]) throws {
        self.paths = paths
        self.environment = environment
        let settings = try Settings(paths: paths, environment: environment)
        state = Mutex(State(settings: settings, stamp: FileStamp(paths.configFile)))
    }

    /// The settings now.
    public var current: Settings {
        let stamp = FileStamp(paths.configFile)
        return state.withLock { state in
            if stamp != state.stamp, let reread = try? Settings(paths: paths, environment: environment) {
                state.settings = reread
                state.stamp = stamp
            }
            return state.settings
        }
    }

    /// Sets a value in the config file, after checking it.
    public func set(_ key: String, to value: String) throws {
        try change { try $0.set(key, to: value) }
    }

    /// Removes a value from the config file, so its default (or the environment) applies again.
    public func unset(_ key: String) throws {
        try change { try $0.unset(key) }
    }

    /// The owner-only store of API keys.
    public var secrets: SecretStore { SecretStore(file: paths.secretsFile) }

    private func change(_ body: (inout Settings) throws -> Void) throws {
        try state.withLock { state in
            // Start from the file as it is now, so a change another process made is not undone.
            var settings = try Settings(paths: paths, environment: environment)
            try body(&settings)
            state.settings = settings
            state.stamp = FileStamp(paths.configFile)
        }
    }
}
