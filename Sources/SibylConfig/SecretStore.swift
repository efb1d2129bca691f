import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// API keys, kept in one JSON file readable and writable by its owner only (mode 0600).
///
/// Keys are never printed: listings show them masked. A file found with looser permissions is
/// tightened on read, because other users on the machine must not be able to read it.
public struct SecretStore: Sendable {
    public let file: URL

    public init(file: URL) {
        self.file = file
    }

    /// The stored key with this name.
    public func secret(named name: String) throws -> String? {
        try load()[name]
    }

    /// The names of the stored keys.
    public func names() throws -> [String] {
        try load().keys.sorted()
    }

    /// Stores a key under a name, replacing any earlier one.
    public func set(_ secret: String, named name: String) throws {
        try Self.check(name)
        var secrets = try load()
        secrets[name] = secret.trimmingCharacters(in: .whitespacesAndNewlines)
        try save(secrets)
    }

    /// Removes a key; returns whether there was one.
    @discardableResult
    public func remove(named name: String) throws -> Bool {
        var secrets = try load()
        guard secrets.removeValue(forKey: name) != nil else { return false }
        try save(secrets)
        return true
    }

    /// The file's permission bits, or nil when there is no file.
    public func permissions() -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int) ?? nil
    }

    private func load() throws -> [String: String] {
        guard FileManager.default.fileExists(atPath: file.path) else { return [:] }
        if let mode = permissions(), mode & 0o077 != 0 {
            chmod(file.path, 0o600)
        }
        do {
            let data = try Data(contentsOf: file)
            if data.isEmpty { return [:] }
            return try JSONDecoder().decode([String: String].self, from: data)
        } catch {
            throw ConfigError.unreadableFile(path: file.path, reason: "it is not a JSON object of key names to keys")
        }
    }

    private func save(_ secrets: [String: String]) throws {
        let directory = file.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try FileWriter.writeAtomically(try encoder.encode(secrets), to: file, permissions: 0o600)
    }

    private static func check(_ name: String) throws {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_"))
        guard !name.isEmpty, name.unicodeScalars.allSatisfy(allowed.contains) else {
            throw ConfigError.invalidSecretName(name)
        }
    }
}
