import Accounts
@testable import APIContract
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import SibylServer
import SibylCore

/// Accounts on a server: who may start it where, sign-in, sessions with CSRF, API tokens, roles.
@Suite("Accounts over the API", .timeLimit(.minutes(10)))
struct AuthRoutesTests {
    static let password = "correct horse battery"

    /// A server with accounts: an administrator `ada` and a user `bo`.
    static func withAccounts(
        throttle: LoginThrottle = LoginThrottle(), _ body: @escaping @Sendable (ServerFixture, Accounts) async throws -> Void
    ) async throws {
        let accounts = try Accounts.inMemory(throttle: throttle)
        try await accounts.add(name: "ada", password: password, role: .admin)
        try await accounts.add(name: "bo", password: password, role: .user)
        try await withServerFixture(accounts: accounts) { fixture in try await body(fixture, accounts) }
    }

    /// Signs in; returns the cookie header value and the CSRF token.
    static func signIn(_ client: any TestClientProtocol, _ name: String) async throws -> (cookie: String, csrf: String) {
        try await client.execute(uri: "/api/v1/auth/session", method: .post, headers: jsonHeaders, body: jsonBody(["name": name, "password": password])) { response in
            #expect(response.status == .ok)
            let setCookie = try #require(response.headers[.setCookie])
            let csrf = try #require(response.object["csrfToken"] as? String)
            return (String(setCookie.split(separator: ";")[0]), csrf)
        }
    }

    @Test func theServerRefusesToListenBeyondLoopbackWithoutAccounts() throws {
        #expect(throws: ServeRefusal.openBeyondLoopback(host: "0.0.0.0")) { try AuthSetting.none.resolve(host: "0.0.0.0", accountsExist: true) }
        #expect(try AuthSetting.auto.resolve(host: "192.168.1.5", accountsExist: false) == .accounts, "locked, with a setup token")
        #expect(try AuthSetting.accounts.resolve(host: "127.0.0.1", accountsExist: false) == .accounts)
        #expect(try AuthSetting.auto.resolve(host: "127.0.0.1", accountsExist: false) == .open)
        #expect(try AuthSetting.auto.resolve(host: "::1", accountsExist: true) == .accounts)
        #expect(try AuthSetting.auto.resolve(host: "0.0.0.0", accountsExist: true) == .accounts)
        #expect(try AuthSetting.none.resolve(host: "localhost", accountsExist: true) == .open)
        for host in ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"] { #expect(AuthSetting.isLoopback(host), "\(host)") }
        for host in ["0.0.0.0", "::", "10.0.0.1", "127.0.0.1.example.com", "1270.0.0.1", "example.com"] { #expect(!AuthSetting.isLoopback(host), "\(host)") }
        #expect(ServeRefusal.openBeyondLoopback(host: "x").recoverySuggestion?.contains("sibyl users add NAME --admin") == true)
    }

    /// Every route of the API document but the public ones answers 401 without a session or token;
    /// the list comes from the document, so a new route cannot escape this test.
    @Test func everyRouteButThePublicOnesNeedsSigningIn() async throws {
        let spec = try sibylSpec.get()
        let operations = spec.operationKeys.filter { $0.path.hasPrefix("/api/v1/") }
        try await Self.withAccounts { fixture, _ in
            var covered = 0
            for operation in operations {
                let uri = operation.path.replacingOccurrences(of: #"\{[^}]+\}"#, with: UUID().uuidString.lowercased(), options: .regularExpression)
                let method = HTTPRequest.Method(operation.method.uppercased())!
                let isPublic = AuthMiddleware.publicRoutes.contains("\(method.rawValue) \(operation.path)")
                let body = method == .get ? nil : jsonBody([:])
                try await fixture.client.execute(uri: uri, method: method, headers: jsonHeaders, body: body) { response in
                    if isPublic {
                        #expect(response.status != .unauthorized, "\(method) \(uri) is public")
                    } else {
                        #expect(response.status == .unauthorized, "\(method) \(uri) answered \(response.status) without credentials")
                        #expect(response.headers[.wwwAuthenticate] == #"Bearer realm="sibyl""#)
                        covered += 1
                    }
                }
            }
            for (method, uri) in [(HTTPRequest.Method.get, "/v1/models"), (.post, "/v1/chat/completions"), (.post, "/v1/embeddings")] {
                try await fixture.client.execute(uri: uri, method: method, headers: jsonHeaders, body: jsonBody(["model": "x"])) { response in
                    #expect(response.status == .unauthorized)
                    #expect((response.object["error"] as? [String: Any])?["type"] as? String == "authentication_error")
                }
            }
            print("[auth] routes refused without credentials: \(covered) of \(operations.count) in the API document (\(operations.count - covered) public)")
            #expect(covered >= operations.count - AuthMiddleware.publicRoutes.count)
        }
    }

    @Test func aSessionCookieIsStrictAndChangesNeedTheCSRFToken() async throws {
        try await Self.withAccounts { fixture, _ in
            let client = fixture.client
            try await client.execute(uri: "/api/v1/auth/session", method: .post, headers: jsonHeaders, body: jsonBody(["name": "bo", "password": Self.password])) { response in
                let cookie = try #require(response.headers[.setCookie])
                for attribute in ["HttpOnly", "SameSite=Strict", "Path=/"] { #expect(cookie.contains(attribute), "\(cookie)") }
                #expect(!cookie.contains("Secure"), "Secure only when the server is told it is behind TLS")
                #expect(response.object["csrfToken"] != nil)
            }
            let (cookie, csrf) = try await Self.signIn(client, "bo")
            let cookieOnly: HTTPFields = [.cookie: cookie, .contentType: "application/json"]
            try await client.execute(uri: "/api/v1/auth/session", method: .get, headers: cookieOnly) { response in
                #expect(response.status == .ok)
                #expect((response.object["account"] as? [String: Any])?["name"] as? String == "bo")
                #expect(response.object["csrfToken"] as? String == csrf)
            }
            try await client.execute(uri: "/api/v1/conversations", method: .post, headers: cookieOnly, body: jsonBody([:])) { response in
                #expect(response.status == .forbidden)
                #expect(response.errorCode == "csrf_failed")
            }
            var wrong = cookieOnly
            wrong[AuthMiddleware.csrfHeader] = String(csrf.reversed())
            try await client.execute(uri: "/api/v1/conversations", method: .post, headers: wrong, body: jsonBody([:])) { response in
                #expect(response.errorCode == "csrf_failed")
            }
            var withToken = cookieOnly
            withToken[AuthMiddleware.csrfHeader] = csrf
            try await client.execute(uri: "/api/v1/conversations", method: .post, headers: withToken, body: jsonBody([:])) { response in
                #expect(response.status == .created)
            }
            try await client.execute(uri: "/api/v1/auth/session", method: .delete, headers: withToken) { response in
                #expect(response.status == .noContent)
                #expect(response.headers[.setCookie]?.contains("Max-Age=0") == true)
            }
            try await client.execute(uri: "/api/v1/conversations", method: .get, headers: cookieOnly) { response in
                #expect(response.status == .unauthorized, "a signed-out session must not work again")
            }
            // A made-up cookie value (session fixation) is never accepted.
            try await client.execute(uri: "/api/v1/conversations", method: .get, headers: [.cookie: "sibyl_session=" + String(repeating: "a", count: 43)]) { response in
                #expect(response.status == .unauthorized)
            }
        }
    }

    @Test func signingOutEverywhereEndsEverySession() async throws {
        try await Self.withAccounts { fixture, accounts in
            let first = try await Self.signIn(fixture.client, "bo")
            let second = try await Self.signIn(fixture.client, "bo")
            try await fixture.client.execute(uri: "/api/v1/auth/sessions", method: .delete, headers: [.cookie: first.cookie, AuthMiddleware.csrfHeader: first.csrf]) { response in
                #expect(response.status == .noContent)
            }
            try await fixture.client.execute(uri: "/api/v1/auth/session", method: .get, headers: [.cookie: second.cookie]) { response in
                #expect(response.status == .unauthorized)
            }
            await #expect(try accounts.sessionCount(accountID: try accounts.account(named: "bo").id) == 0)
        }
    }

    @Test func failedSignInsSayTheSameAndAreThrottled() async throws {
        // The throttle's clock stands still: however slow the machine, no try comes back meanwhile.
        let moment = Date()
        try await Self.withAccounts(throttle: LoginThrottle(now: { moment })) { fixture, _ in
            var bodies: [String] = []
            for (name, password) in [("bo", "wrong password"), ("nobody", "wrong password")] {
                try await fixture.client.execute(uri: "/api/v1/auth/session", method: .post, headers: jsonHeaders, body: jsonBody(["name": name, "password": password])) { response in
                    #expect(response.status == .unauthorized)
                    bodies.append(response.text)
                }
            }
            #expect(bodies[0] == bodies[1], "an unknown name and a wrong password must look alike")
            for _ in 0..<4 {
                try await fixture.client.execute(uri: "/api/v1/auth/session", method: .post, headers: jsonHeaders, body: jsonBody(["name": "bo", "password": "still wrong"])) { _ in }
            }
            try await fixture.client.execute(uri: "/api/v1/auth/session", method: .post, headers: jsonHeaders, body: jsonBody(["name": "bo", "password": Self.password])) { response in
                #expect(response.status == .tooManyRequests)
                #expect(Int(response.headers[.retryAfter] ?? "") ?? 0 > 0)
            }
        }
    }

    @Test func apiTokensWorkForScriptsAndOpenAIClientsAndCanBeReadOnlyOrRevoked() async throws {
        try await Self.withAccounts { fixture, _ in
            fixture.model.handle(chatPath) { _ in .chatStream(["hello"]) }
            let client = fixture.client
            let session = try await Self.signIn(client, "bo")
            let headers: HTTPFields = [.cookie: session.cookie, AuthMiddleware.csrfHeader: session.csrf, .contentType: "application/json"]
            func issue(readOnly: Bool) async throws -> (id: String, secret: String) {
                try await client.execute(uri: "/api/v1/auth/tokens", method: .post, headers: headers, body: jsonBody(["label": "script", "readOnly": readOnly])) { response in
                    #expect(response.status == .created)
                    let token = try #require(response.object["token"] as? [String: Any])
                    return (try #require(token["id"] as? String), try #require(response.object["secret"] as? String))
                }
            }
            let reader = try await issue(readOnly: true)
            let writer = try await issue(readOnly: false)
            let readerHeaders: HTTPFields = [.authorization: "Bearer \(reader.secret)", .contentType: "application/json"]
            try await client.execute(uri: "/api/v1/conversations", method: .get, headers: readerHeaders) { #expect($0.status == .ok) }
            try await client.execute(uri: "/api/v1/conversations", method: .post, headers: readerHeaders, body: jsonBody([:])) { response in
                #expect(response.status == .forbidden)
                #expect(response.errorCode == "read_only_token")
            }
            // A read-only token may still ask through the OpenAI-compatible endpoint (nothing is stored).
            try await client.execute(uri: chatPath, method: .post, headers: readerHeaders, body: jsonBody(["model": "sibyl-assistant", "messages": [["role": "user", "content": "hi"]]])) { response in
                #expect(response.status == .ok)
            }
            // A token needs no CSRF token: browsers do not send it on their own.
            try await client.execute(uri: "/api/v1/conversations", method: .post, headers: [.authorization: "Bearer \(writer.secret)", .contentType: "application/json"], body: jsonBody([:])) { response in
                #expect(response.status == .created)
            }
            try await client.execute(uri: "/api/v1/auth/tokens", method: .get, headers: headers) { response in
                #expect(response.array.count == 2)
                #expect(!response.text.contains(reader.secret) && !response.text.contains(writer.secret), "a token's secret is shown once")
            }
            try await client.execute(uri: "/api/v1/auth/tokens/\(reader.id)", method: .delete, headers: headers) { #expect($0.status == .noContent) }
            try await client.execute(uri: "/api/v1/conversations", method: .get, headers: readerHeaders) { #expect($0.status == .unauthorized) }
            // Another account cannot revoke (or see) bo's token.
            let ada = try await Self.signIn(client, "ada")
            try await client.execute(uri: "/api/v1/auth/tokens/\(writer.id)", method: .delete, headers: [.cookie: ada.cookie, AuthMiddleware.csrfHeader: ada.csrf]) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    @Test func onlyAdministratorsManageTheSharedServer() async throws {
        try await Self.withAccounts { fixture, accounts in
            let user = try await accounts.issueToken(accountID: try accounts.account(named: "bo").id, label: "t", readOnly: false).secret
            let admin = try await accounts.issueToken(accountID: try accounts.account(named: "ada").id, label: "t", readOnly: false).secret
            for (method, uri) in [(HTTPRequest.Method.put, "/api/v1/settings/chat.model"), (.put, "/api/v1/keys/openai?scope=shared"), (.post, "/api/v1/models/install"), (.get, "/api/v1/users")] {
                try await fixture.client.execute(uri: uri, method: method, headers: [.authorization: "Bearer \(user)", .contentType: "application/json"], body: jsonBody(["value": "x"])) { response in
                    #expect(response.status == .forbidden, "\(method) \(uri)")
                    #expect(response.errorCode == "admin_only")
                }
            }
            try await fixture.client.execute(uri: "/api/v1/settings/chat.model", method: .get, headers: [.authorization: "Bearer \(user)"]) { #expect($0.status == .ok) }
            try await fixture.client.execute(uri: "/api/v1/settings/chat.model", method: .put, headers: [.authorization: "Bearer \(admin)", .contentType: "application/json"], body: jsonBody(["value": "m2"])) { response in
                #expect(response.status == .ok)
            }
        }
    }

    /// After keys, passwords, sessions and tokens have all been used, no file under the data
    /// directory (databases, their journals, logs, settings) holds any of them in the clear.
    @Test func noSecretIsWrittenInTheClear() async throws {
        let key = "sk-proj-SECRETKEY0123456789abcdef"
        let accounts = try Accounts(path: FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-accounts-\(UUID().uuidString).sqlite").path, hasher: PasswordHasher(cost: 4))
        try await accounts.add(name: "ada", password: Self.password, role: .admin)
        try await withServerFixture(accounts: accounts) { fixture in
            fixture.model.handle(chatPath) { _ in .chatStream(["hello"]) }
            let session = try await Self.signIn(fixture.client, "ada")
            let headers: HTTPFields = [.cookie: session.cookie, AuthMiddleware.csrfHeader: session.csrf, .contentType: "application/json"]
            try await fixture.client.execute(uri: "/api/v1/keys/openai", method: .put, headers: headers, body: jsonBody(["key": key])) { response in
                #expect(response.status == .ok)
                #expect(!response.text.contains(key), "keys are write-only")
            }
            let token = try await fixture.client.execute(uri: "/api/v1/auth/tokens", method: .post, headers: headers, body: jsonBody(["label": "t"])) { response in
                try #require(response.object["secret"] as? String)
            }
            let conversation = try await fixture.client.execute(uri: "/api/v1/conversations", method: .post, headers: [.authorization: "Bearer \(token)", .contentType: "application/json"], body: jsonBody([:])) { response in
                try #require(response.object["id"] as? String)
            }
            try await fixture.client.execute(uri: "/api/v1/conversations/\(conversation)/turns", method: .post, headers: [.authorization: "Bearer \(token)", .contentType: "application/json"], body: jsonBody(["text": "hi", "stream": false])) { response in
                #expect(response.object["status"] as? String == "complete")
            }
            #expect(fixture.model.requests(to: chatPath).last?.header("Authorization") == "Bearer \(key)", "the key was really used")
            let secrets = [key, Self.password, token, String(session.cookie.split(separator: "=")[1])]
            var scanned = 0
            let files = FileManager.default.enumerator(at: fixture.home, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
            for file in files + ["", "-wal", "-shm"].map({ URL(fileURLWithPath: accounts.location + $0) }) {
                guard let data = FileManager.default.contents(atPath: file.path) else { continue }
                scanned += 1
                for secret in secrets { #expect(data.range(of: Data(secret.utf8)) == nil, "\(file.lastPathComponent) holds a secret in the clear") }
            }
            print("[secrets] \(scanned) files under the data directory scanned; none holds a key, password, token or session")
            #expect(scanned >= 5)
        }
    }

    /// Behind a trusted proxy, throttling counts the forwarded client address and the cookie is
    /// Secure when the proxy says HTTPS; from any other peer the same headers change nothing.
    @Test func forwardedHeadersCountOnlyFromTrustedProxies() async throws {
        for trusted in [true, false] {
            // A slow refill: over the live connection the 20 tries may take longer than the default 3 s a try.
            let accounts = try Accounts.inMemory(throttle: LoginThrottle(perAddress: .init(burst: 20, refillSeconds: 3_600)))
            try await accounts.add(name: "bo", password: Self.password, role: .user)
            try await withServerFixture(testing: .live, accounts: accounts, trustedProxies: trusted ? ["127.0.0.1", "::1"] : []) { fixture in
                func signIn(from address: String, password: String) async throws -> TestResponse {
                    let headers: HTTPFields = [.contentType: "application/json", ForwardedMiddleware.forwardedFor: "198.51.100.1, \(address)", ForwardedMiddleware.forwardedProto: "https"]
                    return try await fixture.client.execute(uri: "/api/v1/auth/session", method: .post, headers: headers, body: jsonBody(["name": "user\(UUID().uuidString.prefix(6))", "password": password])) { $0 }
                }
                for _ in 0..<20 { _ = try await signIn(from: "203.0.113.5", password: "wrong password") }
                #expect(try await signIn(from: "203.0.113.5", password: "wrong password").status == .tooManyRequests)
                // Another client behind the same proxy is its own address only when the proxy is trusted.
                #expect(try await signIn(from: "203.0.113.6", password: "wrong password").status == (trusted ? .unauthorized : .tooManyRequests))
                let headers: HTTPFields = [.contentType: "application/json", ForwardedMiddleware.forwardedFor: "203.0.113.7", ForwardedMiddleware.forwardedProto: "https"]
                try await fixture.client.execute(uri: "/api/v1/auth/session", method: .post, headers: headers, body: jsonBody(["name": "bo", "password": Self.password])) { response in
                    if trusted {
                        #expect(response.status == .ok)
                        #expect(response.headers[.setCookie]?.contains("Secure") == true)
                    } else {
                        #expect(response.status == .tooManyRequests, "without a trusted proxy every request is the proxy's own address")
                    }
                }
            }
        }
    }

    /// Administrators manage accounts over the API; a user changes only their own password, and
    /// must give the present one.
    @Test func administratorsManageAccountsAndUsersTheirOwnPassword() async throws {
        try await Self.withAccounts { fixture, accounts in
            let ada = try await Self.signIn(fixture.client, "ada")
            let asAda: HTTPFields = [.cookie: ada.cookie, AuthMiddleware.csrfHeader: ada.csrf, .contentType: "application/json"]
            try await fixture.client.execute(uri: "/api/v1/users", method: .post, headers: asAda, body: jsonBody(["name": "cy", "password": "a good long one"])) { response in
                #expect(response.status == .created)
                #expect(response.object["role"] as? String == "user")
            }
            try await fixture.client.execute(uri: "/api/v1/users", method: .post, headers: asAda, body: jsonBody(["name": "CY", "password": "a good long one"])) { #expect($0.status == .conflict) }
            try await fixture.client.execute(uri: "/api/v1/users", method: .get, headers: asAda) { response in
                #expect(response.array.compactMap { $0["name"] as? String } == ["ada", "bo", "cy"])
                #expect(!response.text.contains("$2b$"))
            }
            let bo = try await Self.signIn(fixture.client, "bo")
            let asBo: HTTPFields = [.cookie: bo.cookie, AuthMiddleware.csrfHeader: bo.csrf, .contentType: "application/json"]
            try await fixture.client.execute(uri: "/api/v1/users", method: .get, headers: asBo) { #expect($0.errorCode == "admin_only") }
            try await fixture.client.execute(uri: "/api/v1/users/cy", method: .delete, headers: asBo) { #expect($0.errorCode == "admin_only") }
            try await fixture.client.execute(uri: "/api/v1/auth/password", method: .put, headers: asBo, body: jsonBody(["current": "not it", "password": "a brand new one"])) { response in
                #expect(response.status == .unauthorized)
            }
            try await fixture.client.execute(uri: "/api/v1/auth/password", method: .put, headers: asBo, body: jsonBody(["current": Self.password, "password": "a brand new one"])) { response in
                #expect(response.status == .noContent)
            }
            try await fixture.client.execute(uri: "/api/v1/auth/session", method: .get, headers: asBo) { #expect($0.status == .unauthorized, "a new password ends the sessions") }
            _ = try await accounts.signIn(name: "bo", password: "a brand new one", address: "x")
            try await fixture.client.execute(uri: "/api/v1/users/cy", method: .delete, headers: asAda) { #expect($0.status == .noContent) }
            try await fixture.client.execute(uri: "/api/v1/users/ada", method: .delete, headers: asAda) { response in
                #expect(response.status == .conflict)
                #expect(response.errorCode == "last_admin")
            }
            await #expect(try accounts.list().map(\.name) == ["ada", "bo"])

            // Administrators read any account's log; a user only their own.
            let boAgain = try await accounts.issueToken(accountID: try accounts.account(named: "bo").id, label: "t", readOnly: false).secret
            try await fixture.client.execute(uri: "/api/v1/conversations", method: .post, headers: [.authorization: "Bearer \(boAgain)", .contentType: "application/json"], body: jsonBody([:])) { _ in }
            try await fixture.client.execute(uri: "/api/v1/images?limit=1", method: .get, headers: [.authorization: "Bearer \(boAgain)"]) { _ in }
            try await fixture.client.execute(uri: "/api/v1/logs?account=ada", method: .get, headers: [.authorization: "Bearer \(boAgain)"]) { response in
                #expect(response.errorCode == "admin_only")
            }
            let fresh = try await Self.signIn(fixture.client, "ada")
            for (account, status) in [("bo", HTTPResponse.Status.ok), ("local", .ok), ("nobody", .notFound)] {
                try await fixture.client.execute(uri: "/api/v1/logs?account=\(account)", method: .get, headers: [.cookie: fresh.cookie]) { response in
                    #expect(response.status == status, "\(account)")
                }
            }
        }
    }

    /// A page asks first whether the server has accounts and who it is: always answered 200, so a
    /// fresh page logs no failed request.
    @Test func theAuthStatusIsAnsweredWhoeverAsks() async throws {
        try await withServerFixture { fixture in
            try await fixture.client.execute(uri: "/api/v1/auth/status", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.object["accounts"] as? Bool == false)
                #expect(response.object["session"] == nil)
            }
        }
        try await Self.withAccounts { fixture, _ in
            try await fixture.client.execute(uri: "/api/v1/auth/status", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.object["accounts"] as? Bool == true)
                #expect(response.object["session"] == nil)
            }
            let (cookie, csrf) = try await Self.signIn(fixture.client, "bo")
            try await fixture.client.execute(uri: "/api/v1/auth/status", method: .get, headers: [.cookie: cookie]) { response in
                let session = try #require(response.object["session"] as? [String: Any])
                #expect((session["account"] as? [String: Any])?["name"] as? String == "bo")
                #expect(session["via"] as? String == "session")
                #expect(session["csrfToken"] as? String == csrf)
            }
            // A session that ended, or a token that was never issued: signed out, not an error.
            for headers: HTTPFields in [[.cookie: "sibyl_session=ended"], [.authorization: "Bearer sibyl_unknown"]] {
                try await fixture.client.execute(uri: "/api/v1/auth/status", method: .get, headers: headers) { response in
                    #expect(response.status == .ok)
                    #expect(response.object["accounts"] as? Bool == true)
                    #expect(response.object["session"] == nil)
                }
            }
        }
    }

    @Test func everyResponseCarriesTheSecurityHeaders() async throws {
        try await withServerFixture { fixture in
            for uri in ["/healthz", "/api/v1/conversations", "/api/v1/conversations/\(UUID().uuidString)", "/v1/models"] {
                try await fixture.client.execute(uri: uri, method: .get) { response in
                    #expect(response.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true, "\(uri)")
                    #expect(response.headers[.xContentTypeOptions] == "nosniff")
                    #expect(response.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer")
                }
            }
            try await fixture.client.execute(uri: "/api/v1/auth/session", method: .post, headers: jsonHeaders, body: jsonBody(["name": "a", "password": "b"])) { response in
                #expect(response.status == .notFound)
                #expect(response.errorCode == "accounts_off")
            }
            // CORS is closed: another site's page gets no permission to read the answers.
            try await fixture.client.execute(uri: "/api/v1/conversations", method: .get, headers: [HTTPField.Name("Origin")!: "https://evil.example"]) { response in
                #expect(response.headers[HTTPField.Name("Access-Control-Allow-Origin")!] == nil)
                #expect(response.headers[HTTPField.Name("Access-Control-Allow-Credentials")!] == nil)
            }
        }
    }
}
