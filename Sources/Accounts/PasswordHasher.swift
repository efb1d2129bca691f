import Crypto
import Foundation
import HummingbirdBcrypt
import NIOPosix
import Synchronization

/// Password hashing: bcrypt (hummingbird-auth's, after OpenBSD's) at cost 12 by default, about a
/// quarter of a second per guess on one core, over the base64 of the password's SHA-256, so that
/// a passphrase longer than bcrypt's 72 bytes counts in full and a NUL cannot cut it short.
/// Hashing runs on NIO's blocking thread pool, never on the tasks that serve requests.
public struct PasswordHasher: Sendable {
    /// bcrypt's cost: 2^cost rounds of its key schedule. 12 is the default; tests use less.
    public let cost: UInt8

    public static let minimumLength = 8
    public static let maximumLength = 1024
    /// A hash no password matches, verified for unknown names so that they take as long as known
    /// ones; made at the first such sign-in, so that opening the accounts (every `sibyl users`
    /// command) does not pay for it.
    private let decoy = Decoy()

    private final class Decoy: Sendable {
        let hash = Mutex<String?>(nil)
    }

    public init(cost: UInt8 = 12) {
        self.cost = cost
    }

    /// Says why a new password cannot be used, or nil.
    public static func weakness(of password: String, name: String) -> String? {
        if password.count < minimumLength { return "it is shorter than \(minimumLength) characters." }
        if password.utf8.count > maximumLength { return "it is longer than \(maximumLength) bytes." }
        if password.lowercased() == name.lowercased() { return "it is the account's name." }
        if Set(password).count < 3 { return "it repeats too few characters." }
        return nil
    }

    public func hash(_ password: String) async throws -> String {
        let (cost, prepared) = (cost, Self.prepared(password))
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(prepared, cost: cost) }
    }

    /// Whether `password` matches `stored`; a nil `stored` (no such account) costs the same time.
    public func verify(_ password: String, against stored: String?) async throws -> Bool {
        let (prepared, cost, decoy) = (Self.prepared(password), cost, decoy)
        let matches = try await NIOThreadPool.singleton.runIfActive {
            let target = stored ?? decoy.hash.withLock { made in
                if let made { return made }
                let hash = Bcrypt.hash(Self.prepared(UUID().uuidString), cost: cost)
                made = hash
                return hash
            }
            return Bcrypt.verify(prepared, hash: target)
        }
        return matches && stored != nil
    }

    /// Whether a stored hash was made with a lower cost than today's (it is rehashed at the next sign-in).
    public func needsRehash(_ stored: String) -> Bool {
        // "$2b$12$…": the cost is the third field.
        let fields = stored.split(separator: "$")
        guard fields.count >= 3, let storedCost = UInt8(fields[1]) else { return true }
        return storedCost < cost
    }

    static func prepared(_ password: String) -> String {
        Data(SHA256.hash(data: Data(password.utf8))).base64EncodedString()
    }
}
