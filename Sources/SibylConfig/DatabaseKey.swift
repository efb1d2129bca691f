import Crypto
public import Foundation

/// Something API keys can be read from: the secrets file, or the sealed keys of a shared database.
public protocol SecretReading: Sendable {
    /// The stored key with this name.
    func secret(named name: String) throws -> String?
    /// The names of the stored keys.
    func names() throws -> [String]
}

extension SecretStore: SecretReading {}

/// What a shared database adds to the settings: its values of the shared settings, and the API
/// keys everyone on it uses.
public struct SharedConfiguration: Sendable {
    public var values: [String: String]
    public var keys: any SecretReading

    public init(values: [String: String], keys: any SecretReading) {
        self.values = values
        self.keys = keys
    }
}

/// The 256-bit key that seals the API keys kept in a shared database (AES-256-GCM).
///
/// The database never holds it: every instance keeps it in its own owner-only secrets store (or
/// is given it in `SIBYL_DATABASE_KEY`), and the database records only its `fingerprint`, so a
/// copy of the database, a backup or a read-only role reveals no key, and an instance holding a
/// different key is told so instead of failing on each request. Each sealed key is bound to its
/// owner and name, so a row moved to another account or renamed no longer opens.
public struct DatabaseKey: Sendable, Equatable {
    /// Its entry in the instance's secrets store (hidden from key listings).
    public static let secretName = "database-key"
    public static let environmentVariable = "SIBYL_DATABASE_KEY"

    private let bytes: Data

    /// A new random key.
    public static func generate() -> DatabaseKey {
        DatabaseKey(bytes: SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) })
    }

    private init(bytes: Data) {
        self.bytes = bytes
    }

    /// A key in its exported form (base64 of 32 bytes; surrounding white space ignored).
    public init(exported text: String) throws {
        guard let bytes = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)), bytes.count == 32 else {
            throw ConfigError.invalidDatabaseKey
        }
        self.bytes = bytes
    }

    /// Its exported form: base64 of its 32 bytes.
    public var exported: String { bytes.base64EncodedString() }

    /// What the database records to recognise it: 16 hex digits of an HMAC under the key, which
    /// tells nothing of the key.
    public var fingerprint: String {
        let code = HMAC<SHA256>.authenticationCode(for: Data("sibyl database key".utf8), using: SymmetricKey(data: bytes))
        return Data(code).prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    /// Seals an API key for its row (`owner`, `name`).
    public func seal(_ secret: String, owner: String, name: String) throws -> Data {
        let box = try AES.GCM.seal(Data(secret.utf8), using: SymmetricKey(data: bytes), authenticating: Self.binding(owner: owner, name: name))
        guard let combined = box.combined else { throw ConfigError.sealedKeyUnreadable(name: name) }
        return combined
    }

    /// Opens a sealed API key of the row (`owner`, `name`).
    public func open(_ sealed: Data, owner: String, name: String) throws -> String {
        do {
            let box = try AES.GCM.SealedBox(combined: sealed)
            let plain = try AES.GCM.open(box, using: SymmetricKey(data: bytes), authenticating: Self.binding(owner: owner, name: name))
            guard let text = String(data: plain, encoding: .utf8) else { throw ConfigError.sealedKeyUnreadable(name: name) }
            return text
        } catch {
            throw ConfigError.sealedKeyUnreadable(name: name)
        }
    }

    private static func binding(owner: String, name: String) -> Data {
        Data("sibyl.key\u{0}\(owner)\u{0}\(name)".utf8)
    }
}

/// Where an instance keeps its `DatabaseKey`: `SIBYL_DATABASE_KEY` when set (for containers whose
/// secrets come from the environment), else an entry of its owner-only secrets store.
public struct DatabaseKeyring: Sendable {
    public let store: SecretStore
    public let environment: [String: String]

    public init(paths: SibylPaths, environment: [String: String]) {
        store = SecretStore(file: paths.secretsFile)
        self.environment = environment
    }

    /// Whether the key comes from the environment (and cannot be changed from here).
    public var fromEnvironment: Bool { !(environment[DatabaseKey.environmentVariable] ?? "").isEmpty }

    /// The key this instance holds, if any.
    public func key() throws -> DatabaseKey? {
        if let text = environment[DatabaseKey.environmentVariable], !text.isEmpty { return try DatabaseKey(exported: text) }
        return try store.secret(named: DatabaseKey.secretName).map { try DatabaseKey(exported: $0) }
    }

    /// Keeps a key in the secrets store.
    public func keep(_ key: DatabaseKey) throws {
        try store.set(key.exported, named: DatabaseKey.secretName)
    }

    /// Forgets the stored key (one that lost a race to be the database's first).
    public func forget() throws {
        try store.remove(named: DatabaseKey.secretName)
    }
}
