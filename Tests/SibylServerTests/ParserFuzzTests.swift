import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Testing
@testable import SibylServer

/// Fuzzing of the request parsers every route relies on: the multipart reader (uploads, audio) and
/// the JSON body decoding of each route that takes one, with the checks routes run on the decoded
/// value before acting on it. Each mutated body goes through the same function the route calls,
/// on a `Request` built here; a thrown error is turned into a status the way the error middleware
/// does (`APIError.from`). A 4xx is the right answer to a damaged body; a 5xx, a crash, a hang or
/// runaway memory fails. The functions are called directly rather than through the router because
/// a body that happens to stay valid would then run the route for real (ingest a document, start an
/// install, call the model), which is neither fast nor what is being tested.
///
/// The mutator and the run harness are shared with the extractor fuzz tests (the files here link to them).
@Suite(.timeLimit(.minutes(60)), .serialized)
struct ParserFuzzTests {
    @Test func multipart() async throws {
        let mutator = Mutator(corpus: MultipartSeeds.bodies, dictionary: MultipartSeeds.tokens, maxSize: 256 << 10)
        let runSeed = FuzzSettings.seed(for: "multipart")
        var run = try FuzzRun(format: "multipart", failureName: "5xx answers")
        for index in 0..<FuzzSettings.inputCount {
            var random = Mutator.generator(runSeed: runSeed, index: index)
            let body = mutator.mutate(mutator.corpus[random.below(mutator.corpus.count)], using: &random)
            let contentType = MultipartSeeds.contentType(using: &random)
            let chunks = Self.chunks(of: body, using: &random)
            let declaredLength = random.oneIn(20) ? "99999999999" : String(body.count)
            // On disk while it runs: if it takes the process down, this file is the input that did.
            let breadcrumb = run.inFlight.appendingPathComponent("input-\(index).multipart")
            try Data((contentType + "\n").utf8 + body).write(to: breadcrumb)
            let finished = await run.run(index: index) {
                await Self.post("/api/v1/documents", contentType: contentType, length: declaredLength, chunks: chunks) { request in
                    // What the upload routes read after parsing, so a form that parses is also used.
                    let form = try await MultipartForm.read(request, limit: 64 << 10, maxFiles: 3)
                    _ = (form.files.map(\.text), form.file("file")?.data.count, form.field("collection"), form.field("language"))
                }
            }
            guard finished else { break }
            try? FileManager.default.removeItem(at: breadcrumb)
        }
        run.finish()
    }

    @Test func json() async throws {
        let targets = JSONTargets.all
        let mutators = targets.map { Mutator(corpus: $0.seeds.map { Data($0.utf8) }, dictionary: JSONTargets.tokens, maxSize: 256 << 10) }
        let runSeed = FuzzSettings.seed(for: "json")
        var run = try FuzzRun(format: "json", failureName: "5xx answers")
        for index in 0..<FuzzSettings.inputCount {
            // Routes take turns, so each body type gets an equal share of the inputs.
            let target = targets[index % targets.count]
            let mutator = mutators[index % targets.count]
            var random = Mutator.generator(runSeed: runSeed, index: index)
            let body = mutator.mutate(mutator.corpus[random.below(mutator.corpus.count)], using: &random)
            let chunks = Self.chunks(of: body, using: &random)
            // On disk while it runs, as above.
            let breadcrumb = run.inFlight.appendingPathComponent("input-\(index)-\(target.name.replacingOccurrences(of: "/", with: "-")).json")
            try Data(body).write(to: breadcrumb)
            let finished = await run.run(index: index) {
                await Self.post("/api/v1/\(target.name)", contentType: "application/json", length: String(body.count), chunks: chunks, read: target.read)
            }
            guard finished else { break }
            try? FileManager.default.removeItem(at: breadcrumb)
        }
        run.finish()
    }

    /// A POST of `chunks` to `path`, read the way its route reads it: accepted, or the answer the
    /// error middleware would give.
    static func post(
        _ path: String, contentType: String, length: String, chunks: [ByteBuffer], read: (Request) async throws -> Void
    ) async -> FuzzOutcome {
        let head = HTTPRequest(
            method: .post, scheme: "http", authority: "localhost", path: path,
            headerFields: [.contentType: contentType, .contentLength: length]
        )
        do {
            try await read(Request(head: head, body: RequestBody(asyncSequence: Chunks(buffers: chunks))))
            return .accepted
        } catch {
            return outcome(of: error)
        }
    }

    /// A refusal is right when the error middleware would answer it with a 4xx.
    static func outcome(of error: any Error) -> FuzzOutcome {
        let status = APIError.from(error).status
        guard status.code >= 500 else { return .rejected }
        return .failed("answered \(status.code) (\(type(of: error)): \(error))")
    }

    /// The body in one to six pieces, as a network delivers it: a parser that keeps state between
    /// buffers must cope with a boundary or a name split anywhere.
    static func chunks(of body: [UInt8], using random: inout SplitMix64) -> [ByteBuffer] {
        guard body.count > 1, !random.oneIn(2) else { return [ByteBuffer(bytes: body)] }
        let cuts = (0..<(1 + random.below(5))).map { _ in 1 + random.below(body.count - 1) }
        let points = [0] + Set(cuts).sorted() + [body.count]
        return zip(points, points.dropFirst()).map { ByteBuffer(bytes: body[$0..<$1]) }
    }
}

/// A request body delivered as these buffers, in order.
struct Chunks: AsyncSequence, Sendable {
    let buffers: [ByteBuffer]

    struct AsyncIterator: AsyncIteratorProtocol {
        var rest: ArraySlice<ByteBuffer>
        mutating func next() async -> ByteBuffer? { rest.popFirst() }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(rest: buffers[...]) }
}

/// Seed bodies for the multipart reader, in the shapes the upload routes take.
enum MultipartSeeds {
    static let boundary = "sibyl-fuzz-7MA4YWxkTrZu0gW"

    static func part(_ name: String, filename: String? = nil, type: String? = nil, _ content: String) -> String {
        var headers = "Content-Disposition: form-data; name=\"\(name)\"" + (filename.map { "; filename=\"\($0)\"" } ?? "") + "\r\n"
        if let type { headers += "Content-Type: \(type)\r\n" }
        return "--\(boundary)\r\n\(headers)\r\n\(content)\r\n"
    }

    static let bodies: [Data] = [
        // Documents: two files and a collection.
        part("files", filename: "notes.txt", type: "text/plain", "First line\nsecond line\n\nNext paragraph")
            + part("files", filename: "guide.md", type: "text/markdown", "# Birds\n\nBirds are **warm-blooded**.")
            + part("collection", "field-guides") + "--\(boundary)--\r\n",
        // Audio: one file with its fields, as OpenAI's transcription endpoint takes them.
        part("file", filename: "speech.wav", type: "audio/wav", "RIFF\u{24}\u{0}\u{0}\u{0}WAVEfmt ")
            + part("model", "whisper-1") + part("language", "en") + "--\(boundary)--\r\n",
        // A preamble, a quoted filename with an escaped quote, and an epilogue.
        "preamble\r\n" + part("files", filename: "say \\\"hi\\\".html", type: "text/html", "<p>Hello</p>") + "--\(boundary)--\r\nepilogue",
        part("collection", "") + "--\(boundary)--",
    ].map { Data($0.utf8) }

    static let tokens = [
        "\r\n", "\r\n\r\n", "--", "--\(boundary)", "\r\n--\(boundary)\r\n", "\r\n--\(boundary)--", "--\(boundary)--\r\n",
        "Content-Disposition: form-data; name=\"files\"; filename=\"a.txt\"\r\n", "Content-Type: text/plain\r\n", "Content-Disposition:",
        ": ", ";", "name=", "filename=", "filename=\"\"", "name=\"\"", "\"", "\\\"", "=\"", "\t", " ", "\u{E9}", "\u{0}",
    ]

    /// The content type sent: mostly right, sometimes subtly or plainly wrong.
    static func contentType(using random: inout SplitMix64) -> String {
        let variants = [
            "multipart/form-data; boundary=\"\(boundary)\"", "Multipart/Form-Data;BOUNDARY=\(boundary)", "multipart/form-data",
            "multipart/form-data; boundary=", "multipart/form-data; boundary=\"\"", "multipart/form-data; boundary=\(boundary.dropLast())",
            "multipart/form-data; charset=utf-8; boundary=\(boundary); boundary=other", "application/json", "multipart/form-data; boundary=\"",
        ]
        return random.oneIn(4) ? variants[random.below(variants.count)] : "multipart/form-data; boundary=\(boundary)"
    }
}

/// One route's JSON body: what it decodes and the checks it runs before acting.
struct JSONTarget: Sendable {
    var name: String
    var seeds: [String]
    var read: @Sendable (Request) async throws -> Void
}

/// The JSON bodies routes take, each with a few valid seeds.
enum JSONTargets {
    static let limit = 2 << 20

    static let all: [JSONTarget] = [
        JSONTarget(name: "turns", seeds: [
            #"{"text":"What do birds eat?","documents":{"collection":"birds","mode":"hybrid"},"temperature":0.2,"maxTokens":256,"stream":false}"#,
            #"{"text":"Describe this","attachments":[{"mimeType":"image/png","filename":"a.png","data":"iVBORw0KGgoAAAANSUhEUg=="}],"model":"local"}"#,
            "{}",
        ]) { request in
            let body = try await request.json(TurnRoutes.TurnRequest.self, limit: limit)
            _ = try body.options()
            _ = try body.images(limit: 1 << 20)
            _ = try body.documents?.scope()
        },
        JSONTarget(name: "chat/completions", seeds: [
            #"{"model":"sibyl","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Hello"}],"stream":true,"stream_options":{"include_usage":true},"temperature":0.5,"max_tokens":100}"#,
            #"{"model":"sibyl","messages":[{"role":"user","content":[{"type":"text","text":"What is this?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgoAAAANSUhEUg==","detail":"low"}}]}],"n":1,"tools":[{"type":"function"}]}"#,
        ]) { request in
            let body = try await request.json(OpenAIWire.ChatRequest.self, limit: limit)
            for (index, message) in body.messages.enumerated() { _ = try ChatCompletions.message(message, index: index) }
        },
        JSONTarget(name: "embeddings", seeds: [#"{"model":"minilm","input":["one","two"],"encoding_format":"float"}"#, #"{"model":"minilm","input":"one"}"#]) { request in
            _ = try await request.json(OpenAIWire.EmbeddingRequest.self, limit: limit)
        },
        JSONTarget(name: "audio/speech", seeds: [#"{"model":"tts-1","input":"Hello","voice":"alloy","response_format":"wav","speed":1.25}"#]) { request in
            _ = try await request.json(OpenAIWire.SpeechRequest.self, limit: limit)
        },
        JSONTarget(name: "speech", seeds: [#"{"text":"Hello there","voice":"en","format":"mp3","speed":1.5}"#]) { request in
            _ = try await request.json(AudioRoutes.SpeechRequest.self, limit: limit)
        },
        JSONTarget(name: "personas", seeds: [#"{"systemPrompt":"You are terse.","model":"local","temperature":0.7,"summary":"Terse"}"#]) { request in
            _ = try await request.json(PersonaRoutes.PersonaBody.self, limit: limit)
        },
        JSONTarget(name: "conversations", seeds: [#"{"title":"Trip","persona":"default","mode":"translator","translateTo":"Korean"}"#, #"{"mode":"chat"}"#]) { request in
            _ = try await request.json(ConversationRoutes.ConversationChange.self, limit: limit).conversationMode()
        },
        JSONTarget(name: "images", seeds: [#"{"prompt":"A red kite","size":"1024x1024","quality":"hd","count":2,"model":"dall-e-3","conversationId":"0b6f5c1e-2f0a-4c5e-9d7a-1f2e3d4c5b6a"}"#]) { request in
            _ = try await request.json(ImageRoutes.ImagineRequest.self, limit: limit)
        },
        JSONTarget(name: "settings/value", seeds: [#"{"value":"0.7"}"#]) { request in
            _ = try await request.json(SettingsRoutes.SettingValue.self, limit: limit)
        },
        JSONTarget(name: "settings/secrets", seeds: [#"{"key":"sk-test"}"#]) { request in
            _ = try await request.json(SettingsRoutes.KeyValue.self, limit: limit)
        },
        JSONTarget(name: "models/install", seeds: [#"{"components":["chat","ocr"]}"#, #"{"components":[]}"#]) { request in
            _ = try await request.json(ModelRoutes.InstallRequest.self, limit: limit)
        },
        JSONTarget(name: "auth/sign-in", seeds: [#"{"name":"ada","password":"correct horse battery staple"}"#]) { request in
            _ = try await request.json(AuthRoutes.SignIn.self, limit: 16 << 10)
        },
        JSONTarget(name: "auth/tokens", seeds: [#"{"label":"laptop","readOnly":true}"#]) { request in
            _ = try await request.json(AuthRoutes.NewToken.self, limit: 16 << 10)
        },
        JSONTarget(name: "glasses/session", seeds: [#"{"persona":"default","translateTo":"English","language":"ko","documents":{"collection":"notes","mode":"vector"}}"#]) { request in
            _ = try await request.json(GlassesRoutes.SessionRequest.self, limit: limit).options()
        },
        JSONTarget(name: "documents/reindex", seeds: [#"{"collection":"birds"}"#]) { request in
            _ = try await request.json(DocumentRoutes.ReindexRequest.self, limit: limit)
        },
    ]

    /// JSON's structure and the values decoders get wrong: huge and odd numbers, escapes that are
    /// not characters, deep nesting.
    static let tokens = [
        "{", "}", "[", "]", ",", ":", "\"", "\\", "null", "true", "false", "0", "-0", "1e999", "-1e999", "1.7976931348623157e309",
        "9223372036854775808", "-9223372036854775809", "0.0000000000000000000000001", "\\u0000", "\\ud800", "\\uDC00\\uD800", "\\uZZZZ",
        "\"text\":", "\"data\":\"!!!\"", "\"mode\":\"sideways\"", "\"role\":\"tool\"", "\"url\":\"data:image/png;base64,\"",
        String(repeating: "[", count: 3000), String(repeating: "{\"a\":", count: 1000), "\u{FEFF}", "/*", "//",
    ]
}

/// Crashes the fuzzer found, each kept as the smallest input that caused it.
extension ParserFuzzTests {
    static func form(_ body: [[UInt8]], boundary: String = "B") async throws -> MultipartForm {
        let head = HTTPRequest(method: .post, scheme: "http", authority: "localhost", path: "/api/v1/documents", headerFields: [.contentType: "multipart/form-data; boundary=\(boundary)"])
        return try await MultipartForm.read(Request(head: head, body: RequestBody(asyncSequence: Chunks(buffers: body.map { ByteBuffer(bytes: $0) }))), limit: 1 << 20, maxFiles: 3)
    }

    /// multipart run, input 16: a byte over 0x7F where a part's header name starts. MultipartKit's
    /// parser looked it up in a 128-entry table and trapped: one request stopped the server.
    @Test(arguments: [[Array("--B\r\n".utf8) + [0xFE]], [Array("--B\r\nCont".utf8), [0xC3, 0xA9] + Array(": x\r\n\r\n".utf8)]])
    func aNonASCIIHeaderNameIsA400NotACrash(body: [[UInt8]]) async throws {
        await #expect {
            _ = try await Self.form(body)
        } throws: { error in
            (error as? APIError)?.status == .badRequest && (error as? APIError)?.code == "invalid_multipart"
        }
    }

    /// The guard refuses only header names: a UTF-8 filename and UTF-8 content at the start of a
    /// body line still arrive, under a browser's boundary that overlaps itself (`----…`).
    @Test func utf8ValuesAndBodiesStillParse() async throws {
        let boundary = "----WebKitFormBoundaryPVOZifB9OqEwP2fn"
        let body = "------\(boundary)\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"files\"; filename=\"résumé.txt\"\r\n\r\nÉté: chaud\r\n--\(boundary)--\r\n"
        let form = try await Self.form([Array(body.utf8)], boundary: boundary)
        #expect(form.files.map(\.filename) == ["résumé.txt"])
        #expect(form.files.map(\.text) == ["Été: chaud"])
    }
}
