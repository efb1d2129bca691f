import Accounts
import Foundation
import HTTPTypes
import Hummingbird

/// Who is calling, on every route behind it: an API token (`Authorization: Bearer sibyl_…`) or a
/// browser session (the `sibyl_session` cookie). Without either, 401. A request made with the
/// cookie that changes anything must carry the session's CSRF token in `X-CSRF-Token` (the
/// cookie is also SameSite=Strict); a read-only token may read and ask, never change; routes that
/// manage the shared server are for administrators.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = SibylRequestContext
    let accounts: Accounts

    static let cookieName = "sibyl_session"
    static let csrfHeader = HTTPField.Name("X-CSRF-Token")!

    /// Reachable without signing in, as `METHOD /path` below the group's prefix.
    static let publicRoutes: Set<String> = ["GET /api/v1/openapi.yaml", "POST /api/v1/auth/session", "POST /api/v1/auth/setup", "GET /api/v1/auth/status"]

    /// Requests a read-only token may make besides reading: they answer, and change nothing that
    /// was there (the Noa app's questions are kept as new conversations, as asking from glasses).
    static let readOnlyPosts: Set<String> = [
        "/v1/chat/completions", "/v1/embeddings", "/v1/audio/transcriptions", "/v1/audio/speech",
        "/api/v1/transcriptions", "/api/v1/speech", "/api/v1/noa", "/api/v1/noa/mm",
    ]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if Self.publicRoutes.contains("\(request.method.rawValue) \(path)") { return try await next(request, context) }
        var context = context
        let credential = try await identify(request)
        context.credential = credential
        let safe = [.get, .head, .options].contains(request.method)
        if case .session(_, let csrfToken) = credential.kind, !safe {
            guard let sent = request.headers[Self.csrfHeader], Self.constantTimeEqual(sent, csrfToken) else {
                throw APIError(.forbidden, code: "csrf_failed", "This request was made with the session cookie but without its CSRF token (X-CSRF-Token).")
            }
        }
        if !credential.mayWrite, !safe, !(request.method == .post && Self.readOnlyPosts.contains(path)) {
            throw APIError(.forbidden, code: "read_only_token", "This API token is read-only: it may read and ask, but not change anything.")
        }
        if Self.isAdministrative(request.method, path), !credential.account.isAdmin {
            throw APIError(.forbidden, code: "admin_only", "Only an administrator may do this.")
        }
        return try await next(request, context)
    }

    /// Who is calling, when anyone is: nil without a credential, or with one that is unknown,
    /// revoked or expired (for a route that answers either way).
    static func caller(of request: Request, accounts: Accounts) async throws -> Credential? {
        do {
            return try await AuthMiddleware(accounts: accounts).identify(request)
        } catch let error as APIError where error.status == .unauthorized {
            return nil
        }
    }

    private func identify(_ request: Request) async throws -> Credential {
        if let authorization = request.headers[.authorization] {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer", let credential = try await accounts.credential(bearer: String(parts[1])) {
                return credential
            }
            throw Self.unauthorized("This API token is unknown or was revoked.")
        }
        if let cookie = request.cookies[Self.cookieName] {
            if let credential = try await accounts.credential(sessionSecret: cookie.value) { return credential }
            throw Self.unauthorized("Your session has ended; sign in again.")
        }
        throw Self.unauthorized("Sign in, or send an API token as `Authorization: Bearer TOKEN`.")
    }

    static func unauthorized(_ message: String) -> APIError {
        APIError(.unauthorized, code: "unauthorized", message, headers: [.wwwAuthenticate: #"Bearer realm="sibyl""#])
    }

    /// What manages the shared server: its accounts, settings and models. (The shared keys are
    /// checked by their routes: everyone may keep keys of their own.)
    static func isAdministrative(_ method: HTTPRequest.Method, _ path: String) -> Bool {
        let api = "/api/v1/"
        guard path.hasPrefix(api) else { return false }
        let rest = path.dropFirst(api.count)
        if rest == "models/install" || rest == "users" || rest.hasPrefix("users/") { return true }
        if rest.hasPrefix("settings") || rest.hasPrefix("vector-store") { return method != .get }
        return false
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// Headers every response carries: no sniffing, no framing, no referrer, and a content policy
/// that lets a page load only this server's own scripts, styles and images.
struct SecurityHeadersMiddleware: RouterMiddleware {
    typealias Context = SibylRequestContext

    static let headers: HTTPFields = [
        .contentSecurityPolicy: "default-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
        .xContentTypeOptions: "nosniff",
        HTTPField.Name("Referrer-Policy")!: "no-referrer",
        HTTPField.Name("X-Frame-Options")!: "DENY",
        HTTPField.Name("Cross-Origin-Opener-Policy")!: "same-origin",
    ]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        for field in Self.headers where response.headers[field.name] == nil { response.headers.append(field) }
        return response
    }
}
