import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif
import OpenAITestServer
import Testing

/// Slow and silent clients (slowloris): connections that stall, in the middle of a request head or
/// idle after an answer, are closed after `serve.idle_timeout`, and meanwhile others are served.
@Suite("sibyl serve and slow clients", .timeLimit(.minutes(10)))
struct SlowClientsTests {
    @Test func silentConnectionsAreClosedWithoutStarvingOthers() async throws {
        try await OpenAITestServer.with { model in
            let cli = try CLIRunner(server: model)
            try await cli.withStarted(["serve", "--port", "0"], environment: ["SIBYL_SERVE_IDLE_TIMEOUT": "2"]) { server in
                let port = try #require(UInt16(exactly: try await ServeCLITests.port(of: server)))

                // 100 connections that send the start of a request and then nothing, and 100 that ask once
                // (keeping the connection alive) and then say nothing more.
                var stalled: [Int32] = [], idle: [Int32] = []
                defer { (stalled + idle).forEach { close($0) } }
                for index in 0..<200 {
                    let socket = try Self.connect(port: port)
                    let text = index % 2 == 0 ? "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " : "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                    _ = text.withCString { send(socket, $0, strlen($0), 0) }
                    if index % 2 == 0 { stalled.append(socket) } else { idle.append(socket) }
                }
                let started = ContinuousClock.now
                let (_, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/healthz")!)
                let served = ContinuousClock.now - started
                #expect((response as? HTTPURLResponse)?.statusCode == 200, "a normal client is served while 200 others stall")

                // Each stalled connection is closed by the server, and each idle one after its answer.
                var closed = (stalled: 0, idle: 0)
                for socket in stalled where Self.waitsForClose(socket, seconds: 20) { closed.stalled += 1 }
                for socket in idle where Self.waitsForClose(socket, seconds: 20) { closed.idle += 1 }
                let millis = served.components.seconds * 1000 + served.components.attoseconds / 1_000_000_000_000_000
                print("[slow] closed by the 2 s limit: \(closed.stalled) of \(stalled.count) connections stalled mid-head, \(closed.idle) of \(idle.count) idle after an answer; a normal request meanwhile took \(millis) ms")
                #expect(closed.stalled == stalled.count)
                #expect(closed.idle == idle.count)
            }
        }
    }

    static func connect(port: UInt16) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(descriptor)
            throw POSIXError(.ECONNREFUSED)
        }
        return descriptor
    }

    /// Whether the peer closes the connection within `seconds` (a read returns end of file or a reset).
    static func waitsForClose(_ socket: Int32, seconds: Int) -> Bool {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count == 0 { return true }
            if count < 0 { return errno == ECONNRESET }
            // Bytes (an error answer) may come first; the close follows.
        }
    }
}
