import ArgumentParser
import Assistant
import Foundation
import SibylApp
import SibylServer

/// `sibyl serve`: the HTTP API, the OpenAI-compatible endpoints and the Monocle relay.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve Sibyl over HTTP: its API (/api/v1), OpenAI-compatible endpoints (/v1) and the glasses relay.",
        discussion: """
        Listens on 127.0.0.1:8080 unless --host/--port or serve.host/serve.port say otherwise. The API is described at \
        /api/v1/openapi.yaml; any OpenAI client works with base URL http://HOST:PORT/v1 and models such as sibyl-assistant \
        or sibyl-assistant-docs. SIGTERM or Ctrl-C shuts down gracefully: answers under way get serve.shutdown_grace \
        seconds and are then saved as cancelled.
        """
    )

    @OptionGroup var global: GlobalOptions
    @Option(help: "The address to listen on (default: serve.host, 127.0.0.1).") var host: String?
    @Option(help: "The port to listen on; 0 picks a free one (default: serve.port, 8080).") var port: Int?
    @Option(name: .customLong("mcp-allow-folder"), help: ArgumentHelp("A folder whose files the MCP tool add_document (at /mcp) may read (repeat for more); without one it takes text only.", valueName: "DIR"))
    var mcpFolders: [String] = []

    func run() async throws {
        // The last lines (shutdown, a failure) are written before the process ends.
        defer { LoggingBootstrap.serverLines?.flush() }
        try await reportingErrors {
            global.bootstrap(defaultLevel: .info, server: true)
            let runtime = try SibylRuntime(logger: global.logger(defaultLevel: .info))
            if let shared = runtime.sharedDatabase {
                // The schema is brought up to date before the first request (once between instances starting together).
                try await shared.ready()
                Terminal.error("Documents, conversations, accounts, settings and API keys are in the database \(shared.database.url)")
                for line in runtime.admin.sharedSettingsWarnings() { Terminal.error(Terminal.yellow("note: \(line)", stderr: true)) }
            }
            var configuration = SibylServer.Configuration(settingsOf: runtime)
            if let host { configuration.host = host }
            if let port { configuration.port = port }
            configuration.mcpFolders = mcpFolders.map { URL(fileURLWithPath: $0, isDirectory: true) }
            let server = try await SibylServer.prepare(runtime: runtime, configuration: configuration)
            let (shownHost, configuredPort) = (configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host, configuration.port)
            try await server.run(onServerRunning: { channel in
                let shown = "\(server.scheme)://\(shownHost):\(channel.localAddress?.port ?? configuredPort)"
                Terminal.error("Sibyl is listening on \(shown) · open \(shown)/ in a browser · API \(shown)/api/v1 · OpenAI-compatible \(shown)/v1 · Ctrl-C stops")
                Terminal.error(server.authMode == .accounts
                    ? "Accounts are on: sign in at \(shown)/ (or POST /api/v1/auth/session), or send an API token (sibyl users token NAME)"
                    : "No accounts (loopback only): everyone on this machine is you")
                if let token = server.setupToken, let link = server.setupLink(base: shown) {
                    Terminal.error("""
                    There is no account yet. Make the first administrator with `sibyl users add NAME --admin`, or once, in a browser:
                      \(link)
                    (from another machine, put this server's address in place of \(shownHost)), or with curl:
                      curl -X POST \(shown)/api/v1/auth/setup -H 'content-type: application/json' -d '{"token": "\(token)", "name": "NAME", "password": "…"}'
                    """)
                }
            }, overdue: {
                // A peer that ignores cancellation (a frozen database's connection) cannot keep the process alive.
                LoggingBootstrap.serverLines?.flush()
                Foundation.exit(EXIT_FAILURE)
            })
            // Everything is stopped and saved. The process ends without the libraries' teardown at
            // exit: ONNX Runtime's crashed in a speech model that a cut-short warm-up was still
            // loading (sibyl serve ended with SIGSEGV after a clean shutdown).
            LoggingBootstrap.serverLines?.flush()
            fflush(nil)
            _exit(EXIT_SUCCESS)
        }
    }
}
