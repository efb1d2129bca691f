public import Foundation

/// A person who may use a shared `sibyl serve`.
public struct Account: Sendable, Hashable, Codable {
    /// What an account may do beyond its own data.
    public enum Role: String, Sendable, Hashable, Codable, CaseIterable {
        /// Manages accounts, the shared providers and models, and reads every log.
        case admin
        /// Uses Sibyl with data of its own.
        case user
    }

    /// A lowercase UUID; it names the account's data directory, so it never changes.
    public var id: String
    /// The sign-in name, unique regardless of case.
    public var name: String
    public var role: Role
    public var createdAt: Date

    public var isAdmin: Bool { role == .admin }

    public init(id: String, name: String, role: Role, createdAt: Date) {
        self.id = id
        self.name = name
        self.role = role
        self.createdAt = createdAt
    }
}

/// An API token as listed: never its secret, which is shown once when it is made.
public struct APIToken: Sendable, Hashable, Codable {
    public var id: String
    public var accountID: String
    /// What its owner called it ("laptop script").
    public var label: String
    /// Read-only tokens may read and ask, but not change or delete anything.
    public var readOnly: Bool
    /// The token's first characters, so that its owner can tell which one it is.
    public var prefix: String
    public var createdAt: Date
    public var lastUsedAt: Date?

    public init(id: String, accountID: String, label: String, readOnly: Bool, prefix: String, createdAt: Date, lastUsedAt: Date?) {
        self.id = id
        self.accountID = accountID
        self.label = label
        self.readOnly = readOnly
        self.prefix = prefix
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}

/// A token as made: its secret is in `secret` and nowhere else.
public struct IssuedToken: Sendable {
    public var token: APIToken
    /// `sibyl_…`: for `Authorization: Bearer`, and as the API key of an OpenAI client.
    public var secret: String
}

/// A browser session as made: the cookie's value and the CSRF token the page sends back.
public struct IssuedSession: Sendable {
    public var account: Account
    /// The cookie's value; the store keeps only its hash.
    public var secret: String
    /// Sent back in `X-CSRF-Token` on every state-changing request made with the cookie.
    public var csrfToken: String
    public var expiresAt: Date
}

/// Who a request is from, and how it proved it.
public struct Credential: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// A browser session; state-changing requests must carry its CSRF token.
        case session(id: String, csrfToken: String)
        /// An API token.
        case token(id: String, readOnly: Bool)
    }

    public var account: Account
    public var kind: Kind

    /// Whether this credential may change data.
    public var mayWrite: Bool {
        if case .token(_, let readOnly) = kind { return !readOnly }
        return true
    }
}
