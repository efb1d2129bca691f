import Assistant
import Foundation
import Logging
public import PostgresStorage
public import SibylConfig
import SibylCore
import Synchronization

/// The settings and API keys several instances share through their database, kept in memory so
/// that reading them costs nothing: loaded when the database is first used, and reloaded whenever
/// any instance commits a change (PostgreSQL's LISTEN/NOTIFY on a connection of this process's
/// own, listened to again after a lost connection, with a full reload each time).
///
/// Keys stay sealed in memory too; one is opened only when a request needs it, with the
/// instance's `DatabaseKey`.
public final class SharedSettings: Sendable {
    let store: PostgresSettingsStore
    public let keyring: DatabaseKeyring
    private let logger: Logger
    private let state = Mutex<State>(State())

    private struct State {
        var snapshot: SharedSettingsSnapshot?
        var watcher: Task<Void, Never>?
        /// Loads begun so far, and the one whose snapshot is kept: a load that began earlier (and
        /// so may have read older rows) never replaces one that began later.
        var loadsBegun = 0
        var kept = 0
    }

    init(store: PostgresSettingsStore, keyring: DatabaseKeyring, logger: Logger) {
        self.store = store
        self.keyring = keyring
        self.logger = logger
    }

    /// Whether the settings have been read from the database yet.
    public var isLoaded: Bool { state.withLock { $0.snapshot != nil } }

    /// Reads every setting and key from the database.
    public func load() async throws {
        let ticket = state.withLock { state in
            state.loadsBegun += 1
            return state.loadsBegun
        }
        let snapshot = try await store.snapshot()
        state.withLock { state in
            guard ticket > state.kept else { return }
            state.snapshot = snapshot
            state.kept = ticket
        }
    }

    /// Keeps the settings current until `stop()`: started once, after the first `load()`.
    func watch() {
        state.withLock { state in
            guard state.watcher == nil else { return }
            state.watcher = Task { [store, logger] in
                while !Task.isCancelled {
                    do {
                        try await store.watch { [weak self] in try? await self?.load() }
                    } catch {
                        guard !Task.isCancelled else { return }
                        logger.warning("settings: lost the database's change notifications; listening again in 5 s", metadata: ["error": "\(error)"])
                    }
                    try? await Task.sleep(for: .seconds(5))
                }
            }
        }
    }

    /// Stops listening for changes; a listener stuck on a database that does not answer is left
    /// behind at `deadline`.
    func stop(by deadline: ContinuousClock.Instant = .now + .seconds(5)) async {
        let watcher = state.withLock { state in
            defer { state.watcher = nil }
            return state.watcher
        }
        guard let watcher else { return }
        watcher.cancel()
        await waitForWork(until: deadline) { await watcher.value }
    }

    /// The shared settings as they are now, with the keys everyone uses.
    public var configuration: SharedConfiguration {
        SharedConfiguration(values: state.withLock { $0.snapshot?.values ?? [:] }, keys: keys(owner: ""))
    }

    /// The keys of one owner: "" for the shared ones, `users/ID` for an account's own. Always
    /// current: each read looks at the latest snapshot.
    public func keys(owner: String) -> SharedKeys {
        SharedKeys(settings: self, owner: owner)
    }

    public var snapshot: SharedSettingsSnapshot { state.withLock { $0.snapshot ?? SharedSettingsSnapshot() } }

    // MARK: Changing

    /// Sets a shared setting (nil removes it); every instance sees it at once.
    public func setValue(_ value: String?, named name: String) async throws {
        try await store.setValue(value, named: name)
        try await load()
    }

    /// Seals and stores a key (nil removes it); returns whether there was one.
    @discardableResult
    public func setKey(_ secret: String?, named name: String, owner: String) async throws -> Bool {
        var sealed: Data?
        if let secret { sealed = try await sealingKey(creating: true).seal(secret, owner: owner, name: name) }
        let existed = try await store.setKey(sealed, named: name, owner: owner)
        try await load()
        return existed
    }

    /// Removes every key of an owner (its account was removed).
    func removeKeys(owner: String) async throws {
        try await store.removeKeys(owner: owner)
        try await load()
    }

    /// The key the database's keys are sealed with: this instance's, checked against the
    /// fingerprint the database recorded. With `creating`, when the database has none yet and this
    /// instance holds none, a new one is made, kept in this instance's secrets store and recorded
    /// (the first of two instances doing this at once wins; the other is told to import it).
    public func sealingKey(creating: Bool) async throws -> DatabaseKey {
        try await load()
        let recorded = snapshot.fingerprint
        if let held = try keyring.key() {
            var holding = recorded ?? ""
            if recorded == nil { holding = try await store.claimFingerprint(held.fingerprint) }
            guard holding == held.fingerprint else { throw ConfigError.databaseKeyMismatch(held: held.fingerprint, recorded: holding) }
            return held
        }
        guard recorded == nil, creating else { throw ConfigError.databaseKeyMissing }
        let fresh = DatabaseKey.generate()
        // Kept before it is recorded: a key recorded but lost would leave nothing that can seal.
        try keyring.keep(fresh)
        guard try await store.claimFingerprint(fresh.fingerprint) == fresh.fingerprint else {
            try keyring.forget()
            throw ConfigError.databaseKeyMissing
        }
        logger.notice("settings: made the key that seals the database's API keys (fingerprint \(fresh.fingerprint)); give it to the other instances with `sibyl db key export`")
        try await load()
        return fresh
    }

    /// The fingerprint of the key the database's API keys are sealed with; nil before the first.
    public var recordedFingerprint: String? { snapshot.fingerprint }

    /// Why this instance cannot open the database's API keys, in words; nil when it can (or there are none).
    public func keyProblem() -> String? {
        guard snapshot.fingerprint != nil else { return nil }
        do {
            _ = try heldKey()
            return nil
        } catch {
            return error.localizedDescription
        }
    }

    /// Takes a key made elsewhere (`sibyl db key import`): it must be the one the database's keys
    /// are sealed with, or the first when there are none yet.
    public func adopt(_ key: DatabaseKey) async throws {
        try await load()
        if let recorded = snapshot.fingerprint, recorded != key.fingerprint {
            throw ConfigError.databaseKeyMismatch(held: key.fingerprint, recorded: recorded)
        }
        let previous = try keyring.store.secret(named: DatabaseKey.secretName)
        try keyring.keep(key)
        if snapshot.fingerprint == nil {
            let holding = try await store.claimFingerprint(key.fingerprint)
            guard holding == key.fingerprint else {
                if let previous { try keyring.store.set(previous, named: DatabaseKey.secretName) } else { try keyring.forget() }
                throw ConfigError.databaseKeyMismatch(held: key.fingerprint, recorded: holding)
            }
            try await load()
        }
    }

    /// Opens a sealed key of an owner with this instance's database key.
    func open(_ sealed: Data, owner: String, name: String) throws -> String {
        try heldKey().open(sealed, owner: owner, name: name)
    }

    /// This instance's database key, when it is the one the database recorded (or none is).
    private func heldKey() throws -> DatabaseKey {
        guard let held = try keyring.key() else { throw ConfigError.databaseKeyMissing }
        if let recorded = snapshot.fingerprint, recorded != held.fingerprint {
            throw ConfigError.databaseKeyMismatch(held: held.fingerprint, recorded: recorded)
        }
        return held
    }
}

/// One owner's keys in the shared database, read from the latest snapshot and opened on demand.
public struct SharedKeys: SecretReading {
    let settings: SharedSettings
    let owner: String

    public func secret(named name: String) throws -> String? {
        guard let sealed = settings.snapshot.keys[owner]?[name] else { return nil }
        return try settings.open(sealed, owner: owner, name: name)
    }

    public func names() throws -> [String] {
        (settings.snapshot.keys[owner] ?? [:]).keys.sorted()
    }
}
