import Accounts
import Assistant
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWSClient
import HummingbirdTesting
import LocalEngines
import Logging
import MonocleEmulator
import NIOCore
import SibylApp
import SibylCore
import Storage
import SibylTestSupport
import Testing
@testable import SibylServer

@Suite("Glasses over the API", .timeLimit(.minutes(10)), .serialized)
struct GlassesRoutesTests {
    /// A browser that joins the relay route: the server starts a controller on it, which begins
    /// by sending the glasses the raw-REPL interrupt.
    @Test func theRelayIsAWebSocketRouteOnTheSameServer() async throws {
        try await withServerFixture(testing: .live) { fixture in
            let port = try #require(fixture.client.port)
            let firstBytes = try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/api/v1/glasses/relay", logger: Logger(label: "test-browser")) { inbound, outbound, _ in
                try await outbound.write(.text(#"{"type":"connected","maxWriteLength":253}"#))
                for try await frame in inbound.messages(maxSize: 1 << 16) {
                    if case .binary = frame {
                        try await fixture.client.execute(uri: "/api/v1/glasses", method: .get) { response in
                            #expect(response.array.first?["kind"] as? String == "relay")
                            #expect(response.array.first?["glasses"] as? String == "monocle", "a connected message without a kind is Monocle's")
                        }
                        return
                    }
                }
            }
            _ = firstBytes
            try await eventually { fixture.server.state.glasses.all.isEmpty }
        }
    }

    /// A page that reports a Frame gets a Frame session: Sibyl asks the glasses for the MTU on
    /// channel 3 (a break, then a print), then its controller breaks, resets and breaks, each packet
    /// whole; the link is listed as relayed Frame glasses.
    @Test func aPageThatReportsAFrameGetsAFrameSession() async throws {
        try await withServerFixture(testing: .live) { fixture in
            let port = try #require(fixture.client.port)
            try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/api/v1/glasses/relay", logger: Logger(label: "test-browser")) { inbound, outbound, _ in
                // Bytes before the glasses are connected have no session to go to.
                try await outbound.write(.binary(ByteBuffer(bytes: [3, 0x41])))
                try await outbound.write(.text(#"{"type":"connected","kind":"frame"}"#))
                var written: [[UInt8]] = []
                for try await frame in inbound.messages(maxSize: 1 << 16) {
                    guard case .binary(let buffer) = frame else { continue }
                    let packet = Array(buffer.readableBytesView)
                    #expect(packet.first == 3, "Frame's packets travel on channel 3")
                    written.append(Array(packet.dropFirst()))
                    if String(decoding: packet.dropFirst(), as: UTF8.self) == "print(frame.bluetooth.max_length())" {
                        try await outbound.write(.binary(ByteBuffer(bytes: [3] + Array("96".utf8))))
                    }
                    if written.count == 5 { break }
                }
                #expect(written == [[0x03], Array("print(frame.bluetooth.max_length())".utf8), [0x03], [0x04], [0x03]])
                try await fixture.client.execute(uri: "/api/v1/glasses", method: .get) { response in
                    let link = response.array.first
                    #expect(link?["kind"] as? String == "relay")
                    #expect(link?["glasses"] as? String == "frame")
                    #expect(link?["state"] as? String != nil)
                }
            }
            try await eventually { fixture.server.state.glasses.all.isEmpty }
        }
    }

    @Test func theRelayRouteRefusesPlainRequests() async throws {
        try await withServerFixture { fixture in
            try await fixture.client.execute(uri: "/api/v1/glasses/emulator", method: .delete) { response in
                #expect(response.status == .notFound)
            }
            try await fixture.client.execute(uri: "/api/v1/glasses/emulator/tap", method: .post) { response in
                #expect(response.status == .notFound)
            }
            try await fixture.client.execute(uri: "/api/v1/glasses", method: .get) { response in
                #expect(response.array.isEmpty)
            }
        }
    }

    /// On a server with accounts the relay needs a session or token, refuses pages of other
    /// origins (cross-site WebSocket hijacking), and a relayed pair of glasses is its account's alone.
    @Test func relayedGlassesBelongToTheirAccount() async throws {
        let accounts = try Accounts.inMemory()
        let ada = try await accounts.add(name: "ada", password: AuthRoutesTests.password, role: .admin)
        let bo = try await accounts.add(name: "bo", password: AuthRoutesTests.password, role: .user)
        let adaToken = try await accounts.issueToken(accountID: ada.id, label: "a", readOnly: false).secret
        let boToken = try await accounts.issueToken(accountID: bo.id, label: "b", readOnly: false).secret
        try await withServerFixture(testing: .live, accounts: accounts) { fixture in
            let url = "ws://127.0.0.1:\(try #require(fixture.client.port))/api/v1/glasses/relay"
            let logger = Logger(label: "test-browser")
            await #expect(throws: (any Error).self, "no session, no relay") {
                try await WebSocketClient.connect(url: url, logger: logger) { _, _, _ in Issue.record("upgraded without signing in") }
            }
            let foreign = WebSocketClientConfiguration(additionalHeaders: [.authorization: "Bearer \(boToken)", .origin: "https://evil.example"])
            await #expect(throws: (any Error).self, "a page on another site is refused") {
                try await WebSocketClient.connect(url: url, configuration: foreign, logger: logger) { _, _, _ in Issue.record("upgraded from another origin") }
            }
            let own = WebSocketClientConfiguration(additionalHeaders: [.authorization: "Bearer \(boToken)", .origin: "http://127.0.0.1:\(try #require(fixture.client.port))"])
            try await WebSocketClient.connect(url: url, configuration: own, logger: logger) { inbound, outbound, _ in
                try await outbound.write(.text(#"{"type":"connected","maxWriteLength":253}"#))
                for try await frame in inbound.messages(maxSize: 1 << 16) {
                    guard case .binary = frame else { continue }
                    try await fixture.client.execute(uri: "/api/v1/glasses", method: .get, headers: [.authorization: "Bearer \(boToken)"]) { response in
                        #expect(response.array.first?["kind"] as? String == "relay")
                    }
                    try await fixture.client.execute(uri: "/api/v1/glasses", method: .get, headers: [.authorization: "Bearer \(adaToken)"]) { response in
                        #expect(response.array.isEmpty, "another account's glasses are not listed, even to an administrator")
                    }
                    return
                }
            }
            try await eventually { fixture.server.state.glasses.all.isEmpty }
        }
    }

    @Test func theRelayAcceptsOnlyPagesOfItsOwnHost() throws {
        func request(authority: String, origins: [String]) -> Request {
            var head = HTTPRequest(method: .get, scheme: "http", authority: authority, path: "/api/v1/glasses/relay")
            for origin in origins { head.headerFields.append(HTTPField(name: .origin, value: origin)) }
            return Request(head: head, body: .init(buffer: ByteBuffer()))
        }
        for (authority, origins) in [("sibyl.example:8080", []), ("sibyl.example:8080", ["https://sibyl.example"]), ("[::1]:9000", ["http://[::1]:9000"]), ("Sibyl.Example", ["http://sibyl.example:8080"])] {
            #expect(throws: Never.self, "\(authority) \(origins)") { try GlassesRoutes.checkOrigin(request(authority: authority, origins: origins)) }
        }
        for (authority, origins) in [("sibyl.example:8080", ["https://evil.example"]), ("sibyl.example", ["null"]), ("sibyl.example", ["https://sibyl.example.evil.example"]), ("sibyl.example", ["https://sibyl.example", "https://evil.example"])] {
            #expect(throws: APIError.self, "\(authority) \(origins)") { try GlassesRoutes.checkOrigin(request(authority: authority, origins: origins)) }
        }
    }

    /// The virtual Monocle answers a spoken question. Each account runs its own: what its wearer
    /// asks is kept with that account's conversations, and another account can neither see nor drive it.
    @Test(.enabled(
        if: FileManager.default.fileExists(atPath: EngineLayout().microPythonModule.path)
            && EngineInstaller(layout: EngineLayout()).status().first { $0.name == "stt" }?.installed == true,
        "the MicroPython interpreter or speech-to-text is not installed"
    ))
    func eachAccountHasItsOwnVirtualMonocle() async throws {
        let accounts = try Accounts.inMemory()
        let ada = try await accounts.add(name: "ada", password: AuthRoutesTests.password, role: .admin)
        let bo = try await accounts.add(name: "bo", password: AuthRoutesTests.password, role: .user)
        let asAda: HTTPFields = [.authorization: "Bearer \(try await accounts.issueToken(accountID: ada.id, label: "a", readOnly: false).secret)", .contentType: "application/json"]
        let asBo: HTTPFields = [.authorization: "Bearer \(try await accounts.issueToken(accountID: bo.id, label: "b", readOnly: false).secret)", .contentType: "application/json"]
        try await withServerFixture(environment: ["SIBYL_STT_PROVIDER": "local", "SIBYL_ENGINES": EngineLayout().root.path], accounts: accounts) { fixture in
            fixture.model.handle(chatPath) { _ in .chatStream(["Paris."]) }
            let client = fixture.client
            try await client.execute(uri: "/api/v1/glasses/emulator", method: .post, headers: asAda, body: jsonBody([:])) { #expect($0.status == .created, "\($0.text)") }
            try await client.execute(uri: "/api/v1/glasses/emulator", method: .post, headers: asAda, body: jsonBody([:])) { #expect($0.status == .conflict, "one each") }
            // Bo sees nothing of Ada's glasses and cannot drive them.
            try await client.execute(uri: "/api/v1/glasses", method: .get, headers: asBo) { #expect($0.array.isEmpty) }
            for (method, uri) in [(HTTPRequest.Method.get, "/api/v1/glasses/emulator/screen"), (.get, "/api/v1/glasses/emulator/screen.png"), (.post, "/api/v1/glasses/emulator/tap"), (.post, "/api/v1/glasses/emulator/hold"), (.delete, "/api/v1/glasses/emulator")] {
                try await client.execute(uri: uri, method: method, headers: asBo) { #expect($0.status == .notFound, "\(method) \(uri)") }
            }
            try await waitUntilScreen(fixture, headers: asAda) { $0.contains { $0.lowercased().contains("tap") } }
            let speech = try await EspeakSynthesizer().synthesize("What is the capital of France?", options: SpeechOptions(format: .wav, speed: 0.8)).data
            var form = MultipartBody()
            form.file("file", filename: "question.wav", contentType: "audio/wav", speech)
            var formHeaders = form.headers
            formHeaders[.authorization] = asAda[.authorization]
            try await client.execute(uri: "/api/v1/glasses/emulator/microphone", method: .post, headers: formHeaders, body: form.buffer) { #expect($0.status == .accepted) }
            try await client.execute(uri: "/api/v1/glasses/emulator/tap", method: .post, headers: asAda) { #expect($0.status == .accepted) }
            try await waitUntilScreen(fixture, headers: asAda) { $0.joined(separator: " ").contains("Paris") }
            // The same screen drawn as the glasses show it.
            try await client.execute(uri: "/api/v1/glasses/emulator/screen.png", method: .get, headers: asAda) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/png")
                #expect(response.headers[.cacheControl] == "no-store")
                let png = Data(buffer: response.body)
                #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
                // IHDR: width and height, big-endian, after the signature, length and type.
                #expect(png.dropFirst(16).prefix(8) == Data([0, 0, 0x02, 0x80, 0, 0, 0x01, 0x90]), "640×400")
                #expect(png != DisplayImage().png(), "the answer is drawn, not a blank screen")
            }
            try await client.execute(uri: "/api/v1/glasses", method: .get, headers: asAda) { response in
                let link = response.array.first
                #expect(link?["kind"] as? String == "emulator")
                #expect(link?["lastAnswer"] as? String == "Paris.")
                #expect((link?["lastQuestion"] as? String)?.lowercased().contains("capital") == true)
                #expect(link?["firmware"] as? String != nil)
            }
            try await client.execute(uri: "/api/v1/conversations?source=glasses", method: .get, headers: asAda) { #expect($0.object["total"] as? Int == 1) }
            try await client.execute(uri: "/api/v1/conversations?source=glasses", method: .get, headers: asBo) { #expect($0.object["total"] as? Int == 0) }
            let localGlasses = try await fixture.runtime.conversations.list(source: .glasses).items
            #expect(localGlasses.isEmpty, "nothing went to the local user's data")
            // Bo's own virtual Monocle runs beside Ada's; removing Bo's account stops it.
            try await client.execute(uri: "/api/v1/glasses/emulator", method: .post, headers: asBo, body: jsonBody([:])) { #expect($0.status == .created, "\($0.text)") }
            #expect(fixture.server.state.glasses.all.count == 2)
            try await client.execute(uri: "/api/v1/users/bo", method: .delete, headers: asAda) { #expect($0.status == .noContent) }
            #expect(fixture.server.state.glasses.links(of: bo.id).isEmpty)
            try await client.execute(uri: "/api/v1/glasses/emulator", method: .delete, headers: asAda) { #expect($0.status == .noContent) }
            #expect(fixture.server.state.glasses.all.isEmpty)
        }
    }

    /// Waits until the virtual glasses' screen shows what `condition` wants (the server offers no
    /// event for a redrawn screen: it is asked until it does; a ceiling of 3 minutes against hangs).
    func waitUntilScreen(_ fixture: ServerFixture, headers: HTTPFields = [:], _ condition: @escaping @Sendable ([String]) -> Bool) async throws {
        var lines: [String] = []
        try await eventually(within: .seconds(180), "the screen to show what was waited for; it shows \(lines)") {
            lines = try await fixture.client.execute(uri: "/api/v1/glasses/emulator/screen", method: .get, headers: headers) { response in
                (response.object["lines"] as? [String]) ?? []
            }
            return condition(lines)
        }
    }
}
