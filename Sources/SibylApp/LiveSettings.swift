import Assistant
import Foundation
public import SibylConfig
import Synchronization

/// The settings of a running Sibyl, always current: a change made through any shell (the API, or
/// `sibyl config set` in another process) applies to the next thing that reads them, without a
/// restart.
///
/// Reading is cheap: the config file is reread only when its size or modification time changed,
/// and a shared database's settings (`shared`) are kept in memory and reloaded when they change.
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
    /// The settings and keys of the database several instances share, when one is named.
    public let shared: SharedSettings?

    /// Reads the settings of the data directory in `paths` (and of the shared database, once loaded).
    public init(paths: SibylPaths, environment: [String: String], shared: SharedSettings? = nil) throws {
        self.paths = paths
        self.environment = environment
        self.shared = shared
        let settings = try Settings(paths: paths, environment: environment)
        state = Mutex(State(settings: settings, stamp: FileStamp(paths.configFile)))
    }

    /// The settings now.
    public var current: Settings {
        let stamp = FileStamp(paths.configFile)
        var settings = state.withLock { state in
            if stamp != state.stamp, let reread = try? Settings(paths: paths, environment: environment) {
                state.settings = reread
                state.stamp = stamp
            }
            return state.settings
        }
        settings.shared = shared?.configuration
        return settings
    }

    /// Sets a value, after checking it: in the shared database when the setting is shared and
    /// there is one, else in the config file.
    public func set(_ name: String, to value: String) async throws {
        if let shared, let key = ConfigKey.named(name), key.scope == .shared {
            try await shared.setValue(try key.validate(value).get(), named: name)
        } else {
            try change { try $0.set(name, to: value) }
        }
    }

    /// Removes a value, so its default (or the environment) applies again.
    public func unset(_ name: String) async throws {
        if let shared, let key = ConfigKey.named(name), key.scope == .shared {
            try await shared.setValue(nil, named: name)
        } else {
            try change { try $0.unset(name) }
        }
    }

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
