public import Foundation

/// Where Sibyl's PostgreSQL is, from `SIBYL_DATABASE_URL`:
/// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require]` over TCP, or
/// `postgres://USER@/DATABASE?host=/socket/folder` over a Unix socket (libpq's spelling: the folder
/// that holds `.s.PGSQL.PORT`). `postgresql://` works too.
public struct DatabaseURL: Sendable, Hashable, CustomStringConvertible {
    public enum Endpoint: Sendable, Hashable {
        case tcp(host: String, port: Int)
        /// The socket file itself.
        case unixSocket(path: String)
    }

    /// Whether the connection is encrypted (TCP only; a Unix socket never leaves the machine).
    public enum TLSMode: String, Sendable, Hashable {
        /// Plain text.
        case disable
        /// Encrypted when the server offers it, plain otherwise (libpq's default).
        case prefer
        /// Encrypted, or no connection.
        case require
    }

    public var endpoint: Endpoint
    public var username: String
    /// Never printed: `description` leaves it out.
    public var password: String?
    public var database: String
    public var tls: TLSMode

    public init(_ text: String) throws {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              ["postgres", "postgresql"].contains(scheme)
        else { throw DatabaseError.badURL("it must start with postgres:// (for example postgres://sibyl@db.example:5432/sibyl)") }
        let query = Dictionary((components.queryItems ?? []).map { ($0.name.lowercased(), $0.value ?? "") }, uniquingKeysWith: { _, last in last })
        username = components.percentEncodedUser.flatMap { $0.removingPercentEncoding } ?? query["user"] ?? "postgres"
        password = components.percentEncodedPassword.flatMap { $0.removingPercentEncoding } ?? query["password"]
        let path = components.path.drop { $0 == "/" }
        database = path.isEmpty ? username : String(path)
        let port = components.port ?? query["port"].flatMap(Int.init) ?? 5432
        let host = query["host"] ?? components.host?.removingPercentEncoding ?? ""
        if host.hasPrefix("/") {
            endpoint = .unixSocket(path: (host as NSString).appendingPathComponent(".s.PGSQL.\(port)"))
        } else if !host.isEmpty {
            endpoint = .tcp(host: host, port: port)
        } else {
            throw DatabaseError.badURL("it names no server: add a host (postgres://USER@HOST/DATABASE) or a socket folder (?host=/run/postgresql)")
        }
        let mode = query["sslmode"]?.lowercased() ?? "prefer"
        switch mode {
        case "disable", "allow": tls = .disable
        case "prefer": tls = .prefer
        case "require", "verify-ca", "verify-full": tls = .require
        default: throw DatabaseError.badURL("sslmode must be disable, prefer or require, not \(mode)")
        }
    }

    /// The whole URL, password included, to hand to another process (never to print).
    public var connectionString: String {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        func encoded(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text }
        let who = encoded(username) + (password.map { ":" + encoded($0) } ?? "")
        switch endpoint {
        case .tcp(let host, let port):
            return "postgres://\(who)@\(host):\(port)/\(encoded(database))?sslmode=\(tls.rawValue)"
        case .unixSocket(let path):
            let socket = path as NSString
            let port = socket.lastPathComponent.split(separator: ".").last.map(String.init) ?? "5432"
            return "postgres://\(who)@/\(encoded(database))?host=\(encoded(socket.deletingLastPathComponent))&port=\(port)"
        }
    }

    /// The URL without its password, for messages and logs.
    public var description: String {
        let who = password == nil ? username : "\(username):***"
        switch endpoint {
        case .tcp(let host, let port): return "postgres://\(who)@\(host):\(port)/\(database)"
        case .unixSocket(let path): return "postgres://\(who)@/\(database)?host=\((path as NSString).deletingLastPathComponent)"
        }
    }
}

/// What went wrong with Sibyl's PostgreSQL.
public enum DatabaseError: Error, Sendable, Equatable, LocalizedError {
    case badURL(String)
    case unreachable(url: String, reason: String)
    /// The server answered a statement with an error.
    case refused(String)
    case migrationFailed(version: Int, name: String, reason: String)
    /// The database was migrated by a newer Sibyl.
    case newerSchema(found: Int, known: Int)
    /// PostgreSQL cancelled a transaction to break a deadlock or a serialization conflict; trying
    /// it again is safe.
    case conflict(String)

    public var errorDescription: String? {
        switch self {
        case .badURL(let why): "The database URL (SIBYL_DATABASE_URL) is not one Sibyl can use: \(why)."
        case .unreachable(let url, let reason): "Cannot reach the database \(url): \(reason)"
        case .refused(let reason): "The database refused a statement: \(reason)"
        case .migrationFailed(let version, let name, let reason): "Migration \(version) (\(name)) failed and was rolled back: \(reason)"
        case .newerSchema(let found, let known): "The database's schema is at version \(found), newer than this Sibyl knows (\(known)): upgrade Sibyl."
        case .conflict(let reason): "The database cancelled a change that collided with another: \(reason)"
        }
    }
}
