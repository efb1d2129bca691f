import Assistant
import Foundation
public import SibylConfig

/// Copies settings and API keys between a data directory and a shared database, for
/// `sibyl db migrate --to`: the shared settings of the config file (the machine's own stay in the
/// file) and the keys of the secrets files, the server's and each account's.
///
/// What the destination already has is kept, and reported when it differs: the copy fills in, it
/// never overwrites. Keys go into the database sealed with the database key (made on the first
/// copy, or the one this instance holds), and come back out into owner-only secrets files.
public enum SettingsCopy {
    public struct Report: Sendable, Hashable {
        public var settings = 0
        public var keys = 0
        /// Settings and keys the destination has with another value (kept there), as `name` or `owner: name`.
        public var keptThere: [String] = []
    }

    /// How a key kept as it is in the destination is named in the report.
    static func keyLabel(_ name: String, owner: String) -> String {
        owner.isEmpty ? "key \(name)" : "\(owner): key \(name)"
    }

    /// From a data directory into the shared database.
    public static func copy(from paths: SibylPaths, into shared: SharedSettings) async throws -> Report {
        var report = Report()
        try await shared.load()
        let file = try Settings(paths: paths, environment: [:])
        let there = shared.configuration.values
        for (name, value) in file.sharedFileValues.sorted(by: { $0.key < $1.key }) {
            if let existing = there[name] {
                if existing != value { report.keptThere.append(name) }
                continue
            }
            try await shared.setValue(value, named: name)
            report.settings += 1
        }
        for (owner, home) in paths.dataDirectories() {
            let store = SecretStore(file: home.secretsFile)
            guard FileManager.default.fileExists(atPath: store.file.path) else { continue }
            let present = Set(try shared.keys(owner: owner).names())
            for name in try store.names() where name != DatabaseKey.secretName {
                guard let secret = try store.secret(named: name) else { continue }
                if present.contains(name) {
                    if try shared.keys(owner: owner).secret(named: name) != secret { report.keptThere.append(keyLabel(name, owner: owner)) }
                    continue
                }
                try await shared.setKey(secret, named: name, owner: owner)
                report.keys += 1
            }
        }
        return report
    }

    /// From the shared database into a data directory.
    public static func copy(from shared: SharedSettings, into paths: SibylPaths) async throws -> Report {
        var report = Report()
        try await shared.load()
        var file = try Settings(paths: paths, environment: [:])
        for (name, value) in shared.configuration.values.sorted(by: { $0.key < $1.key }) {
            if let existing = file.fileValues[name] {
                if existing != value { report.keptThere.append(name) }
                continue
            }
            try file.set(name, to: value)
            report.settings += 1
        }
        for owner in shared.snapshot.keys.keys.sorted() {
            let home = paths.dataDirectory(ofOwner: owner)
            try home.createHome()
            let store = SecretStore(file: home.secretsFile)
            let keys = shared.keys(owner: owner)
            for name in try keys.names() {
                guard let secret = try keys.secret(named: name) else { continue }
                if let existing = try store.secret(named: name) {
                    if existing != secret { report.keptThere.append(keyLabel(name, owner: owner)) }
                    continue
                }
                try store.set(secret, named: name)
                report.keys += 1
            }
        }
        return report
    }
}
