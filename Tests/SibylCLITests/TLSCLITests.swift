import Foundation
import OpenAITestServer
import Testing
import SibylCore

/// `sibyl serve` over HTTPS with a certificate and key of its own (serve.tls_cert, serve.tls_key).
@Suite("sibyl serve over HTTPS", .timeLimit(.minutes(10)))
struct TLSCLITests {
    @Test func itServesHTTPSWithTheGivenCertificateAndRefusesHalfASetup() async throws {
        try await OpenAITestServer.with { model in
            let cli = try CLIRunner(server: model)
            try FileManager.default.createDirectory(at: cli.home, withIntermediateDirectories: true)
            let (certificate, key) = (cli.home.appendingPathComponent("cert.pem").path, cli.home.appendingPathComponent("key.pem").path)
            let made = try await Self.run("/usr/bin/openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                                                         "-keyout", key, "-out", certificate, "-days", "1", "-subj", "/CN=localhost"])
            #expect(made.status == 0, "\(made.output)")

            let half = try await cli.run(["serve", "--port", "0"], environment: ["SIBYL_SERVE_TLS_CERT": certificate])
            #expect(half.status != 0)
            #expect(half.stderr.contains("needs both serve.tls_cert and serve.tls_key"), "\(half.stderr)")
            let wrong = try await cli.run(["serve", "--port", "0"], environment: ["SIBYL_SERVE_TLS_CERT": key, "SIBYL_SERVE_TLS_KEY": certificate])
            #expect(wrong.status != 0)
            #expect(wrong.stderr.contains("cannot be used"), "\(wrong.stderr)")

            try await cli.withStarted(["serve", "--port", "0"], environment: ["SIBYL_SERVE_TLS_CERT": certificate, "SIBYL_SERVE_TLS_KEY": key]) { server in
                let port = try await ServeCLITests.port(of: server)
                #expect(server.stderr.text.contains("https://127.0.0.1:\(port)"))
                let secure = try await Self.run("/usr/bin/curl", ["-sk", "--max-time", "30", "-D", "-", "https://127.0.0.1:\(port)/healthz"])
                #expect(secure.output.contains(#"{"status":"ok"}"#), "\(secure.output)")
                #expect(secure.output.lowercased().contains("content-security-policy"))
                let verified = try await Self.run("/usr/bin/curl", ["-s", "--max-time", "30", "--cacert", certificate, "https://localhost:\(port)/healthz"])
                #expect(verified.output.contains(#"{"status":"ok"}"#), "the certificate is the one served: \(verified.output)")
                let plain = try await Self.run("/usr/bin/curl", ["-s", "--max-time", "30", "http://127.0.0.1:\(port)/healthz"])
                #expect(!plain.output.contains("status"), "plain HTTP is not answered on an HTTPS port")
            }
        }
    }

    static func run(_ tool: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = await PipeDrain.readToEnd(pipe.fileHandleForReading)
        await process.exited()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
