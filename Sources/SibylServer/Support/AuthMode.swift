import Accounts
public import Foundation
public import SibylCore

extension AuthSetting {
    /// What the server does, given where it listens and whether any account exists; throws the
    /// message a user needs when it must not start.
    public func resolve(host: String, accountsExist: Bool) throws -> AuthMode {
        let loopback = Self.isLoopback(host)
        switch self {
        case .none:
            guard loopback else { throw ServeRefusal.openBeyondLoopback(host: host) }
            return .open
        case .auto where loopback && !accountsExist:
            return .open
        case .auto, .accounts:
            // With no account yet, the server starts with a one-time setup token (see `SibylServer.setupToken`).
            return .accounts
        }
    }

    /// Whether only this machine can reach an address.
    public static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if bare == "localhost" || bare == "::1" || bare == "0:0:0:0:0:0:0:1" { return true }
        let parts = bare.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }
}

/// What the server does about who is calling.
public enum AuthMode: Sendable, Equatable {
    /// No accounts: everything is the local user's (loopback only).
    case open
    /// Accounts: sessions and API tokens.
    case accounts
}

/// Why `sibyl serve` will not start as configured.
public enum ServeRefusal: Error, LocalizedError, Equatable {
    case openBeyondLoopback(host: String)
    case halfTLS
    case unreadableTLS(certificate: String, key: String, reason: String)

    public var errorDescription: String? {
        switch self {
        case .openBeyondLoopback(let host):
            "serve.auth = none is allowed only on a loopback address, and \(host) is not one: anyone who can reach it would read your conversations, documents and keys."
        case .halfTLS:
            "HTTPS needs both serve.tls_cert and serve.tls_key; only one is set."
        case .unreadableTLS(let certificate, let key, let reason):
            "The TLS certificate \(certificate) or key \(key) cannot be used: \(reason)"
        }
    }

    public var recoverySuggestion: String? {
        switch self {
        case .openBeyondLoopback:
            "Listen on 127.0.0.1 only, or create the first administrator (`sibyl users add NAME --admin`) and set serve.auth to auto or accounts."
        case .halfTLS, .unreadableTLS:
            "Set both serve.tls_cert and serve.tls_key to PEM files (the certificate chain and its private key), or neither."
        }
    }
}
