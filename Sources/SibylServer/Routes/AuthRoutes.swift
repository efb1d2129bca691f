import Accounts
import Foundation
import Hummingbird

/// Signing in and out, and API tokens: `/api/v1/auth/…`. On a server without accounts they
/// answer 404.
struct AuthRoutes: RouteCollectionAdding {
    let state: ServerState

    struct SignIn: Codable, Sendable {
        var name: String
        var password: String
    }

    struct AccountBody: Codable, Sendable {
        var id: String
        var name: String
        var role: String

        init(_ account: Account) {
            id = account.id
            name = account.name
            role = account.role.rawValue
        }
    }

    struct SessionBody: Codable, Sendable {
        var account: AccountBody
        /// `session` or `token`.
        var via: String
        /// Send it back in `X-CSRF-Token` on requests that change something.
        var csrfToken: String?
        var expiresAt: Date?
    }

    struct NewToken: Codable, Sendable {
        var label: String?
        var readOnly: Bool?
    }

    struct TokenBody: Codable, Sendable {
        var id: String
        var label: String
        var readOnly: Bool
        var prefix: String
        var createdAt: Date
        var lastUsedAt: Date?

        init(_ token: APIToken) {
            id = token.id
            label = token.label
            readOnly = token.readOnly
            prefix = token.prefix
            createdAt = token.createdAt
            lastUsedAt = token.lastUsedAt
        }
    }

    struct IssuedTokenBody: Codable, Sendable {
        var token: TokenBody
        /// Shown once: the server keeps only its hash.
        var secret: String
    }

    /// Whether the server has accounts, and who is signed in: a normal answer either way.
    struct AuthStatus: Codable, Sendable {
        var accounts: Bool
        var session: SessionBody?
    }

    struct NewAccount: Codable, Sendable {
        var name: String
        var password: String
        var role: String?
    }

    struct Setup: Codable, Sendable {
        /// The one-time token `sibyl serve` printed.
        var token: String
        var name: String
        var password: String
    }

    struct PasswordChange: Codable, Sendable {
        /// The account's present password (when it changes its own).
        var current: String?
        var password: String
    }

    func add(to group: RouterGroup<SibylRequestContext>) {
        addAccountRoutes(to: group)
        group.post("auth/session") { request, context in
            let accounts = try accountsOn()
            let body = try await request.json(SignIn.self, limit: 16 << 10)
            let session = try await accounts.signIn(name: body.name, password: body.password, address: context.clientKey)
            return try signedIn(session, status: .ok, context: context)
        }
        group.get("auth/status") { request, _ in
            guard let accounts = state.accounts else { return JSONBody(AuthStatus(accounts: false)) }
            guard let credential = try await AuthMiddleware.caller(of: request, accounts: accounts) else { return JSONBody(AuthStatus(accounts: true)) }
            return JSONBody(AuthStatus(accounts: true, session: Self.session(credential)))
        }
        group.get("auth/session") { _, context in
            JSONBody(Self.session(try credentialOn(context)))
        }
        group.delete("auth/session") { _, context in
            let (accounts, credential) = (try accountsOn(), try credentialOn(context))
            guard case .session(let id, _) = credential.kind else {
                throw APIError.badRequest("This request was made with an API token, not a session; revoke the token instead.")
            }
            try await accounts.signOut(sessionID: id)
            return signedOut(context)
        }
        group.delete("auth/sessions") { _, context in
            try await accountsOn().signOutEverywhere(accountID: try credentialOn(context).account.id)
            return signedOut(context)
        }
        group.get("auth/tokens") { _, context in
            await JSONBody(try accountsOn().tokens(accountID: try credentialOn(context).account.id).map(TokenBody.init))
        }
        group.post("auth/tokens") { request, context in
            let (accounts, credential) = (try accountsOn(), try credentialOn(context))
            let body = try await request.json(NewToken.self, limit: 16 << 10)
            let issued = try await accounts.issueToken(accountID: credential.account.id, label: body.label ?? "token", readOnly: body.readOnly ?? false)
            return JSONBody(IssuedTokenBody(token: TokenBody(issued.token), secret: issued.secret), status: .created)
        }
        group.delete("auth/tokens/:tokenId") { _, context in
            try await accountsOn().revokeToken(id: try context.parameters.require("tokenId"), accountID: try credentialOn(context).account.id)
            return Response(status: .noContent)
        }
    }

    /// The first administrator (with the setup token), accounts for administrators
    /// (`AuthMiddleware` keeps `/users` to them), and a password change for everyone.
    private func addAccountRoutes(to group: RouterGroup<SibylRequestContext>) {
        group.post("auth/setup") { request, context in
            let accounts = try accountsOn()
            let body = try await request.json(Setup.self, limit: 16 << 10)
            // Taken out before the account is made, so that two requests cannot both use it.
            let valid = state.setupToken.withLock { token -> Bool in
                guard let expected = token, AuthMiddleware.constantTimeEqual(body.token, expected) else { return false }
                token = nil
                return true
            }
            guard valid, try await accounts.isEmpty else {
                throw APIError(.forbidden, code: "setup_closed", "This setup token is wrong, or the first account was made already; sign in instead.")
            }
            do {
                _ = try await accounts.add(name: body.name, password: body.password, role: .admin)
            } catch {
                state.setupToken.withLock { if $0 == nil { $0 = body.token } }  // a weak password must not spend the token
                throw error
            }
            let session = try await accounts.signIn(name: body.name, password: body.password, address: context.clientKey)
            return try signedIn(session, status: .created, context: context)
        }
        group.get("users") { _, _ in await JSONBody(try accountsOn().list().map(AccountBody.init)) }
        group.post("users") { request, _ in
            let body = try await request.json(NewAccount.self, limit: 16 << 10)
            guard let role = Account.Role(rawValue: body.role ?? "user") else { throw APIError.badRequest("'role' is admin or user.") }
            return JSONBody(AccountBody(try await accountsOn().add(name: body.name, password: body.password, role: role)), status: .created)
        }
        group.delete("users/:name") { _, context in
            let removed = try await accountsOn().remove(name: try context.parameters.require("name"))
            await state.closeWorkspace(accountID: removed.id)
            return Response(status: .noContent)
        }
        group.put("auth/password") { request, context in
            let (accounts, credential) = (try accountsOn(), try credentialOn(context))
            let body = try await request.json(PasswordChange.self, limit: 16 << 10)
            // The present password, checked like a sign-in (throttled): a stolen session alone cannot lock its owner out.
            _ = try await accounts.checkPassword(name: credential.account.name, password: body.current ?? "", address: context.clientKey)
            try await accounts.resetPassword(name: credential.account.name, to: body.password)
            return signedOut(context)
        }
    }

    /// What a credential is, as `GET auth/session` tells it.
    static func session(_ credential: Credential) -> SessionBody {
        let csrfToken: String? = if case .session(_, let token) = credential.kind { token } else { nil }
        return SessionBody(account: AccountBody(credential.account), via: csrfToken == nil ? "token" : "session", csrfToken: csrfToken, expiresAt: nil)
    }

    private func accountsOn() throws -> Accounts {
        guard let accounts = state.accounts else {
            throw APIError(.notFound, code: "accounts_off", "This server has no accounts (serve.auth is none); nothing to sign in to.")
        }
        return accounts
    }

    private func credentialOn(_ context: SibylRequestContext) throws -> Credential {
        _ = try accountsOn()
        guard let credential = context.credential else { throw AuthMiddleware.unauthorized("Sign in first.") }
        return credential
    }

    /// A new session's answer: who signed in, the CSRF token, and the cookie.
    private func signedIn(_ session: IssuedSession, status: HTTPResponse.Status, context: SibylRequestContext) throws -> Response {
        let body = SessionBody(account: AccountBody(session.account), via: "session", csrfToken: session.csrfToken, expiresAt: session.expiresAt)
        var response = try JSONBody(body).response(status: status)
        response.setCookie(sessionCookie(session.secret, maxAge: Int(session.expiresAt.timeIntervalSinceNow), secure: context.forwardedHTTPS))
        return response
    }

    /// 204, with the session cookie cleared.
    private func signedOut(_ context: SibylRequestContext) -> Response {
        var response = Response(status: .noContent)
        response.setCookie(sessionCookie("", maxAge: 0, secure: context.forwardedHTTPS))
        return response
    }

    /// HttpOnly, SameSite=Strict, for the whole site; Secure when the server is told it is behind
    /// TLS, or a trusted proxy says the request came over HTTPS.
    private func sessionCookie(_ value: String, maxAge: Int, secure: Bool) -> Cookie {
        Cookie(
            name: AuthMiddleware.cookieName, value: value, maxAge: max(0, maxAge), path: "/",
            secure: state.secureCookies || secure, httpOnly: true, sameSite: .strict
        )
    }
}
