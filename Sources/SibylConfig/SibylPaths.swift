public import Foundation

/// Where Sibyl keeps its data: `SIBYL_HOME`, else `$XDG_DATA_HOME/sibyl`, else `~/.local/share/sibyl`.
public struct SibylPaths: Sendable, Hashable {
    public var home: URL

    public init(home: URL) {
        self.home = home
    }

    /// Resolves the data directory from the environment.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        if let explicit = environment["SIBYL_HOME"], !explicit.isEmpty {
            home = URL(fileURLWithPath: (explicit as NSString).expandingTildeInPath, isDirectory: true)
        } else if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty {
            home = URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent("sibyl", isDirectory: true)
        } else {
            let userHome = environment["HOME"].map { URL(fileURLWithPath: $0, isDirectory: true) }
                ?? FileManager.default.homeDirectoryForCurrentUser
            home = userHome.appendingPathComponent(".local/share/sibyl", isDirectory: true)
        }
    }

    public var database: URL { home.appendingPathComponent("sibyl.sqlite") }
    public var configFile: URL { home.appendingPathComponent("config.json") }
    public var secretsFile: URL { home.appendingPathComponent("secrets.json") }
    public var attachments: URL { home.appendingPathComponent("attachments", isDirectory: true) }
    public var logs: URL { home.appendingPathComponent("logs", isDirectory: true) }
    /// The knowledge base: documents, passages, vectors.
    public var knowledgeDatabase: URL { home.appendingPathComponent("knowledge.sqlite") }
    /// Documents received through uploads, one folder per collection.
    public var uploadedDocuments: URL { home.appendingPathComponent("documents", isDirectory: true) }

    /// The accounts of a shared `sibyl serve`: names, password hashes, sessions, API tokens.
    public var accountsDatabase: URL { home.appendingPathComponent("accounts.sqlite") }
    /// The data of each account of a shared server, one directory per account id.
    public var accountHomes: URL { home.appendingPathComponent("users", isDirectory: true) }
    /// One account's data directory.
    public func accountHome(id: String) -> URL { accountHomes.appendingPathComponent(id, isDirectory: true) }

    /// The name a shared database keeps an account's data under (`users/ID`); the local user's is "".
    public static func owner(ofAccount id: String) -> String { "users/\(id)" }

    /// The data directory of an owner ("" for this one, `users/ID` for an account's).
    public func dataDirectory(ofOwner owner: String) -> SibylPaths {
        owner.hasPrefix("users/") ? SibylPaths(home: accountHome(id: String(owner.dropFirst("users/".count)))) : self
    }

    /// This data directory and each account's under it, with their owners' names, this one first.
    public func dataDirectories() -> [(owner: String, paths: SibylPaths)] {
        let accounts = (try? FileManager.default.contentsOfDirectory(atPath: accountHomes.path)) ?? []
        return [("", self)] + accounts.sorted().map { (Self.owner(ofAccount: $0), SibylPaths(home: accountHome(id: $0))) }
    }

    /// Creates the data directory, readable by the owner only.
    public func createHome() throws {
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }
}
