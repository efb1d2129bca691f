import Crypto
public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// API keys, kept in one file readable and writable by its owner only (mode 0600), sealed with
/// AES-256-GCM under a key in a second owner-only file beside it (`secrets.key`).
///
/// A copy of the data directory's files without the key file (a backup, a synced folder, a
/// database handed over for debugging) holds no readable key. Keys are never printed: listings
/// show them masked. Files found with looser permissions are tightened on read, because other
/// users on the machine must not be able to read them. A store written by an older Sibyl (plain
/// JSON) is read and sealed at once.
public struct SecretStore: Sendable {
    public let file: URL
    /// The sealing key's file.
    public var keyFile: URL { file.deletingPathExtension().appendingPathExtension("key") }

    public init(file: URL) {
        self.file = file
    }

    /// What the sealed file holds: the keys' JSON, sealed.
    struct Sealed: Codable {
        var format = "sibyl.secrets"
        var version = 2
        /// Nonce, ciphertext and tag, base64.
        var sealed: String
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
        Self.permissions(of: file.path)
    }

    private static func permissions(of path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? nil
    }

    private func load() throws -> [String: String] {
        guard FileManager.default.fileExists(atPath: file.path) else { return [:] }
        for path in [file.path, keyFile.path] {
            if let mode = Self.permissions(of: path), mode & 0o077 != 0 {
                chmod(path, 0o600)
            }
        }
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw ConfigError.unreadableFile(path: file.path, reason: error.localizedDescription)
        }
        if data.isEmpty { return [:] }
        if let sealed = try? JSONDecoder().decode(Sealed.self, from: data), sealed.format == "sibyl.secrets" {
            guard FileManager.default.fileExists(atPath: keyFile.path) else {
                throw ConfigError.unreadableFile(path: file.path, reason: "its key file \(keyFile.path) is missing; store the keys again")
            }
            do {
                let box = try AES.GCM.SealedBox(combined: Data(base64Encoded: sealed.sealed) ?? Data())
                let plain = try AES.GCM.open(box, using: try sealingKey(creating: false))
                return try JSONDecoder().decode([String: String].self, from: plain)
            } catch let error as ConfigError {
                throw error
            } catch {
                throw ConfigError.unreadableFile(path: file.path, reason: "it cannot be opened with \(keyFile.path) (a key file from another data directory?)")
            }
        }
        // A plain store from before sealing: read it, then seal it.
        guard let plain = try? JSONDecoder().decode([String: String].self, from: data) else {
            throw ConfigError.unreadableFile(path: file.path, reason: "it is not a JSON object of key names to keys")
        }
        try? save(plain)
        return plain
    }

    private func save(_ secrets: [String: String]) throws {
        let directory = file.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let box = try AES.GCM.seal(try encoder.encode(secrets), using: try sealingKey(creating: true))
        guard let combined = box.combined else { throw ConfigError.unreadableFile(path: file.path, reason: "it could not be sealed") }
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try FileWriter.writeAtomically(try encoder.encode(Sealed(sealed: combined.base64EncodedString())), to: file, permissions: 0o600)
    }

    /// The 256-bit sealing key, made (owner-only) the first time a key is stored.
    private func sealingKey(creating: Bool) throws -> SymmetricKey {
        if let data = try? Data(contentsOf: keyFile) {
            guard data.count == 32 else { throw ConfigError.unreadableFile(path: keyFile.path, reason: "it does not hold a 256-bit key") }
            return SymmetricKey(data: data)
        }
        guard creating else { throw ConfigError.unreadableFile(path: keyFile.path, reason: "it is missing") }
        // Written beside it, then linked into place only if no key is there yet: two processes storing
        // their first key at once must end up with one key, or the loser's sealed file could not be opened.
        let key = SymmetricKey(size: .bits256)
        let staged = keyFile.deletingLastPathComponent().appendingPathComponent(".secrets.key.\(UUID().uuidString)")
        try FileWriter.writeAtomically(key.withUnsafeBytes { Data($0) }, to: staged, permissions: 0o600)
        defer { unlink(staged.path) }
        if link(staged.path, keyFile.path) != 0 {
            guard errno == EEXIST else { throw ConfigError.unreadableFile(path: keyFile.path, reason: String(cString: strerror(errno))) }
            return try sealingKey(creating: false)
        }
        return key
    }

    /// Refuses a name other than letters, digits, '-' and '_'.
    public static func check(_ name: String) throws {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_"))
        guard !name.isEmpty, name.unicodeScalars.allSatisfy(allowed.contains) else {
            throw ConfigError.invalidSecretName(name)
        }
    }
}
