import Accounts
import Assistant
import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWebSocket
import OpenAITestServer
import SibylApp
import SibylTestSupport
@testable import SibylServer

/// A Sibyl server on its own data directory, its chat provider a scriptable test server, driven
/// through HummingbirdTesting's router client.
struct ServerFixture: Sendable {
    let home: URL
    let model: OpenAITestServer
    let runtime: SibylRuntime
    let server: SibylServer
    let client: any TestClientProtocol
}

/// Runs `body` with a fresh fixture; everything is torn down afterwards, whatever happens.
func withServerFixture(
    environment extra: [String: String] = [:], limits: ServerLimits = ServerLimits(), testing: TestingSetup = .router, accounts: Accounts? = nil,
    trustedProxies: Set<String> = [],
    _ body: @escaping @Sendable (ServerFixture) async throws -> Void
) async throws {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-server-\(UUID().uuidString)", isDirectory: true)
    defer { try? FileManager.default.removeItem(at: home) }
    try await OpenAITestServer.with { model in
        var environment = ["SIBYL_HOME": home.path, "OPENAI_BASE_URL": model.baseURL, "SIBYL_MAX_RETRIES": "0", "SIBYL_TITLES": "first-words"]
        environment["PATH"] = ProcessInfo.processInfo.environment["PATH"]
        environment["SIBYL_ENGINES"] = ProcessInfo.processInfo.environment["SIBYL_ENGINES"]
        let runtime = try SibylRuntime(environment: environment.merging(extra) { $1 })
        try await withTeardown {
            var configuration = SibylServer.Configuration(port: 0, limits: limits)
            configuration.trustedProxies = trustedProxies
            let server = SibylServer(runtime: runtime, configuration: configuration, accounts: accounts)
            let router = server.router()
            let app = Application(router: router, server: .http1WebSocketUpgrade(webSocketRouter: router), configuration: .init(address: .hostname("127.0.0.1", port: 0)))
            try await app.test(testing) { client in
                // Live tests talk to the server through a client that waits as long as a busy machine needs.
                let inner: any TestClientProtocol = client.port.map { PatientLiveClient(port: $0) } ?? client
                try await body(ServerFixture(home: home, model: model, runtime: runtime, server: server, client: ContractCheckingClient(inner: inner)))
            }
        } teardown: {
            await runtime.shutdown()
        }
    }
}
