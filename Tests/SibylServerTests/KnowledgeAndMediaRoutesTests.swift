import Assistant
import Foundation
import HummingbirdTesting
import LocalEngines
import SibylApp
import SibylCore
import TestPDFs
import Testing
@testable import SibylServer

/// Routes that need the local engines: documents and search (MiniLM), speech (espeak-ng, ffmpeg),
/// transcription (whisper.cpp). The chat model is the scripted server.
@Suite(
    "Documents, search, audio over the API", .timeLimit(.minutes(10)),
    .serialized,
    .enabled(
        if: EngineInstaller(layout: EngineLayout()).status().filter { ["embeddings", "stt", "tts"].contains($0.name) }.allSatisfy(\.installed)
            || ProcessInfo.processInfo.environment["SIBYL_REQUIRE_ENGINES"] == "1",
        "the local embeddings, speech-to-text and text-to-speech are not installed"
    )
)
struct KnowledgeAndMediaRoutesTests {
    static let local = ["SIBYL_EMBEDDINGS_PROVIDER": "local", "SIBYL_STT_PROVIDER": "local", "SIBYL_TTS_PROVIDER": "local"]

    static let handbook = Data("""
    # Staff handbook

    ## Offices

    The staff wifi password at the Kestrel Lane office is violet-harbor-42.

    ## Facilities

    Printers are on the second floor next to the kitchen.
    """.utf8)

    @Test func uploadListSearchAskFromDocumentsAndRemove() async throws {
        try await withServerFixture(environment: Self.local) { fixture in
            fixture.model.handle(chatPath) { _ in .chatStream(["It is violet-harbor-42 [1]."]) }
            var form = MultipartBody()
            form.field("collection", "office")
            form.file("files", filename: "handbook.md", contentType: "text/markdown", Self.handbook)
            form.file("files", filename: "broken.pdf", contentType: "application/pdf", Data("not a pdf".utf8))
            try await fixture.client.execute(uri: "/api/v1/documents", method: .post, headers: form.headers, body: form.buffer) { response in
                #expect(response.status == .ok)
                let all = events(in: response.text)
                #expect(all.first?.name == "progress")
                #expect(all.contains { $0.json?["type"] as? String == "fileDone" && $0.json?["outcome"] as? String == "failed" })
                let done = try #require(all.last)
                #expect(done.name == "done")
                #expect((done.json?["added"] as? [[String: Any]])?.first?["title"] as? String == "Staff handbook")
                #expect((done.json?["failed"] as? [[String: Any]])?.count == 1, "one bad file does not stop the others")
            }
            var id = 0
            try await fixture.client.execute(uri: "/api/v1/documents?collection=office", method: .get) { response in
                #expect(response.array.count == 1)
                id = response.array.first?["id"] as? Int ?? 0
            }
            try await fixture.client.execute(uri: "/api/v1/documents/\(id)?passages=true", method: .get) { response in
                #expect((response.object["passages"] as? [Any])?.isEmpty == false)
                #expect((response.object["passageSizes"] as? [Any])?.isEmpty == false)
            }
            try await fixture.client.execute(uri: "/api/v1/search?q=wifi%20password&limit=2", method: .get) { response in
                #expect(response.array.first?["document"] as? String == "Staff handbook")
                #expect((response.array.first?["text"] as? String)?.contains("violet-harbor-42") == true)
            }
            let conversation = try await TurnRoutesTests.conversation(fixture.client)
            let grounded: [String: Any] = ["text": "What is the staff wifi password at the Kestrel Lane office?", "documents": ["collection": "office"], "stream": false]
            try await fixture.client.execute(uri: "/api/v1/conversations/\(conversation)/turns", method: .post, headers: jsonHeaders, body: jsonBody(grounded)) { response in
                #expect(response.object["status"] as? String == "complete")
                #expect((response.object["citations"] as? [[String: Any]])?.first?["document"] as? String == "Staff handbook")
            }
            let unrelated: [String: Any] = ["text": "How many moons does Jupiter have?", "documents": [String: Any]()]
            try await fixture.client.execute(uri: "/api/v1/conversations/\(conversation)/turns", method: .post, headers: jsonHeaders, body: jsonBody(unrelated)) { response in
                let all = events(in: response.text)
                #expect(all.map(\.name) == ["declined"])
                #expect((all.first?.json?["answer"] as? String)?.contains("Nothing in your documents") == true)
            }
            try await fixture.client.execute(uri: "/v1/chat/completions", method: .post, headers: jsonHeaders, body: jsonBody([
                "model": "sibyl-assistant-docs", "messages": [["role": "user", "content": "What is the staff wifi password at the Kestrel Lane office?"]],
            ])) { response in
                let content = ((response.object["choices"] as? [[String: Any]])?.first?["message"] as? [String: Any])?["content"] as? String
                #expect(content?.contains("Sources:\n[1] Staff handbook") == true, "\(content ?? "")")
            }
            try await fixture.client.execute(uri: "/api/v1/collections", method: .get) { response in
                #expect(response.array.first?["collection"] as? String == "office")
                #expect(response.array.first?["failures"] as? Int == 1)
            }
            try await fixture.client.execute(uri: "/api/v1/documents/\(id)", method: .delete) { response in
                #expect(response.status == .noContent)
            }
            try await fixture.client.execute(uri: "/api/v1/documents/\(id)", method: .get) { response in
                #expect(response.status == .notFound)
            }
            // The index follows: the removed document is no longer found.
            try await fixture.client.execute(uri: "/api/v1/search?q=wifi%20password&collection=office", method: .get) { response in
                #expect(response.array.isEmpty)
            }
        }
    }

    @Test(.enabled(if: ScanImage.canDraw && TesseractRecognizer().isAvailable, "ffmpeg, fonts-nanum or tesseract is missing"))
    func scansAreReadInTheLanguagesAnUploadOrTheSettingsName() async throws {
        try await withServerFixture(environment: Self.local) { fixture in
            func upload(_ name: String, _ lines: [String], languages: String?) async throws -> [String: Any] {
                var form = MultipartBody()
                if let languages { form.field("ocrLanguages", languages) }
                form.file("files", filename: name, contentType: "image/png", try ScanImage.png(lines))
                var headers = form.headers
                headers[.accept] = "application/json"
                return try await fixture.client.execute(uri: "/api/v1/documents", method: .post, headers: headers, body: form.buffer) { response in
                    #expect(response.status == .ok, "\(response.text)")
                    return response.object
                }
            }
            func text(of name: String) async throws -> String {
                let id = try await fixture.client.execute(uri: "/api/v1/documents", method: .get) { response in
                    try #require(response.array.first { ($0["path"] as? String)?.hasSuffix(name) == true }?["id"] as? Int)
                }
                return try await fixture.client.execute(uri: "/api/v1/documents/\(id)?passages=true", method: .get) { response in
                    ((response.object["passages"] as? [[String: Any]]) ?? []).compactMap { $0["text"] as? String }.joined(separator: "\n")
                }
            }
            // Named by the upload.
            _ = try await upload("seoul.png", ["서울은 대한민국의 수도입니다."], languages: "ko")
            #expect(try await text(of: "seoul.png").contains("서울은 대한민국의 수도입니다."))
            // Named by the settings.
            try await fixture.client.execute(uri: "/api/v1/settings/docs.ocr_languages", method: .put, headers: jsonHeaders, body: jsonBody(["value": "en, ko"])) { response in
                #expect(response.status == .ok)
                #expect(response.object["value"] as? String == "eng,kor")
            }
            _ = try await upload("han-river.png", ["한강이 도시를 가로질러 흐릅니다."], languages: nil)
            #expect(try await text(of: "han-river.png").contains("한강이 도시를 가로질러 흐릅니다."))
            // A language whose trained data is not installed fails the file, naming the package.
            let report = try await upload("french.png", ["Paris est la capitale."], languages: "fra")
            let failure = try #require((report["failed"] as? [[String: Any]])?.first)
            #expect((failure["error"] as? String)?.contains("tesseract-ocr-fra") == true, "\(failure)")
            // Text that names no language is refused before anything is read.
            var bad = MultipartBody()
            bad.field("ocrLanguages", "korean; rm -rf /")
            bad.file("files", filename: "x.png", contentType: "image/png", try ScanImage.png(["x"]))
            try await fixture.client.execute(uri: "/api/v1/documents", method: .post, headers: bad.headers, body: bad.buffer) { response in
                #expect(response.status == .badRequest)
            }
            try await fixture.client.execute(uri: "/api/v1/settings/docs.ocr_languages", method: .put, headers: jsonHeaders, body: jsonBody(["value": "klingon!"])) { response in
                #expect(response.status == .badRequest)
            }
        }
    }

    /// Adds the handbook to a collection through the upload route.
    static func add(_ fixture: ServerFixture, to collection: String, name: String = "handbook.md") async throws {
        var form = MultipartBody()
        form.field("collection", collection)
        form.file("files", filename: name, contentType: "text/markdown", Self.handbook)
        try await fixture.client.execute(uri: "/api/v1/documents", method: .post, headers: form.headers, body: form.buffer) { response in
            #expect(events(in: response.text).last?.name == "done")
        }
    }

    @Test func collectionsAreRenamedAndRemoved() async throws {
        try await withServerFixture(environment: Self.local) { fixture in
            try await Self.add(fixture, to: "office")
            try await Self.add(fixture, to: "archive", name: "old.md")
            try await fixture.client.execute(uri: "/api/v1/collections/office", method: .patch, headers: jsonHeaders, body: jsonBody(["name": " Head Office "])) { response in
                #expect(response.status == .ok)
                #expect(response.object["collection"] as? String == "Head Office")
                #expect(response.object["documents"] as? Int == 1)
                #expect(response.object["vectorStore"] as? String == "embedded")
                #expect(response.object["vectorCount"] as? Int == response.object["passages"] as? Int)
            }
            // Its documents are found under the new name.
            try await fixture.client.execute(uri: "/api/v1/search?q=wifi%20password&collection=Head%20Office", method: .get) { response in
                #expect((response.array.first?["text"] as? String)?.contains("violet-harbor-42") == true)
            }
            try await fixture.client.execute(uri: "/api/v1/collections/archive", method: .patch, headers: jsonHeaders, body: jsonBody(["name": "head office"])) { response in
                #expect(response.status == .conflict)
            }
            try await fixture.client.execute(uri: "/api/v1/collections/archive", method: .patch, headers: jsonHeaders, body: jsonBody(["name": "a/b"])) { response in
                #expect(response.status == .badRequest)
            }
            try await fixture.client.execute(uri: "/api/v1/collections/nowhere", method: .patch, headers: jsonHeaders, body: jsonBody(["name": "somewhere"])) { response in
                #expect(response.status == .notFound)
            }
            try await fixture.client.execute(uri: "/api/v1/collections/archive", method: .delete) { response in
                #expect(response.status == .noContent)
            }
            try await fixture.client.execute(uri: "/api/v1/collections", method: .get) { response in
                #expect(response.array.map { $0["collection"] as? String } == ["Head Office"])
            }
            try await fixture.client.execute(uri: "/api/v1/documents", method: .get) { response in
                #expect(response.array.count == 1, "the archive's document went with it")
            }
            try await fixture.client.execute(uri: "/api/v1/collections/archive", method: .delete) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    /// Moving the knowledge base's vectors to a Pinecone index made from the page, against the
    /// strict mock of Pinecone's specs, and back.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["SIBYL_TEST_PINECONE_URL"] != nil, "no Pinecone mock (SIBYL_TEST_PINECONE_URL)"))
    func vectorsMoveToAPineconeIndexMadeHereAndBack() async throws {
        let mock = ProcessInfo.processInfo.environment["SIBYL_TEST_PINECONE_URL"] ?? ""
        var environment = Self.local
        environment["SIBYL_PINECONE_CONTROL_URL"] = "\(mock)/control"
        try await withServerFixture(environment: environment) { fixture in
            try await Self.add(fixture, to: "office")
            try await fixture.client.execute(uri: "/api/v1/vector-store", method: .get) { response in
                #expect(response.object["store"] as? String == "embedded")
                #expect(response.object["keySet"] as? Bool == false)
            }
            try await fixture.client.execute(uri: "/api/v1/keys/pinecone?scope=shared", method: .put, headers: jsonHeaders, body: jsonBody(["key": "test-key"])) { response in
                #expect(response.status == .ok)
            }
            let name = "sibyl-routes-\(UInt32.random(in: 0...UInt32.max))"
            try await fixture.client.execute(uri: "/api/v1/vector-store/indexes", method: .post, headers: jsonHeaders, body: jsonBody(["name": name])) { response in
                #expect(response.status == .ok)
                #expect(response.object["dimension"] as? Int == 384, "the embedder's size")
                #expect(response.object["ready"] as? Bool == true)
            }
            try await fixture.client.execute(uri: "/api/v1/vector-store", method: .put, headers: jsonHeaders, body: jsonBody(["store": "pinecone", "index": name])) { response in
                #expect(response.status == .ok)
                #expect(response.object["store"] as? String == "pinecone")
                #expect(response.object["index"] as? String == name)
                #expect((response.object["indexes"] as? [[String: Any]])?.contains { $0["name"] as? String == name } == true)
            }
            try await fixture.client.execute(uri: "/api/v1/collections", method: .get) { response in
                #expect(response.array.first?["vectorStore"] as? String == "pinecone")
                #expect(response.array.first?["namespace"] as? String == "office")
            }
            try await fixture.client.execute(uri: "/api/v1/vector-store", method: .put, headers: jsonHeaders, body: jsonBody(["store": "embedded"])) { response in
                #expect(response.object["store"] as? String == "embedded")
            }
            try await fixture.client.execute(uri: "/api/v1/search?q=wifi%20password&collection=office", method: .get) { response in
                #expect((response.array.first?["text"] as? String)?.contains("violet-harbor-42") == true)
            }
            try await fixture.client.execute(uri: "/api/v1/vector-store", method: .put, headers: jsonHeaders, body: jsonBody(["store": "nowhere"])) { response in
                #expect(response.status == .badRequest)
            }
        }
    }

    @Test func uploadsAreHeldToTheirLimits() async throws {
        try await withServerFixture(environment: Self.local, limits: ServerLimits(uploadBytes: 2_000, filesPerUpload: 2)) { fixture in
            var tooMany = MultipartBody()
            for index in 1...3 { tooMany.file("files", filename: "note\(index).txt", contentType: "text/plain", Data("note \(index)".utf8)) }
            try await fixture.client.execute(uri: "/api/v1/documents", method: .post, headers: tooMany.headers, body: tooMany.buffer) { response in
                #expect(response.status == .contentTooLarge)
                #expect(response.errorCode == "too_many_files")
            }
            var tooBig = MultipartBody()
            tooBig.file("files", filename: "big.txt", contentType: "text/plain", Data(repeating: 65, count: 5_000))
            try await fixture.client.execute(uri: "/api/v1/documents", method: .post, headers: tooBig.headers, body: tooBig.buffer) { response in
                #expect(response.status == .contentTooLarge)
            }
            try await fixture.client.execute(uri: "/api/v1/documents", method: .post, headers: jsonHeaders, body: jsonBody([:])) { response in
                #expect(response.status == .unsupportedMediaType)
            }
            try await fixture.client.execute(uri: "/api/v1/documents", method: .get) { response in
                #expect(response.array.isEmpty, "nothing half-written")
            }
        }
    }

    @Test func speechAndTranscriptionTakeAndGiveWhatBrowsersUse() async throws {
        try await withServerFixture(environment: Self.local) { fixture in
            var wav = Data()
            try await fixture.client.execute(uri: "/api/v1/speech", method: .post, headers: jsonHeaders, body: jsonBody(["text": "What is the capital of France?"])) { response in
                #expect(response.headers[.contentType] == "audio/wav")
                wav = Data(buffer: response.body)
            }
            try await fixture.client.execute(uri: "/api/v1/speech", method: .post, headers: jsonHeaders, body: jsonBody(["text": "Hello.", "format": "mp3"])) { response in
                #expect(response.headers[.contentType] == "audio/mpeg")
                #expect(response.body.readableBytes > 100)
            }
            // What Chromium records: WebM with Opus, made here with ffmpeg.
            let webm = try await AudioConverter().encode(AudioFile(data: wav, format: .wav), as: .webm)
            var form = MultipartBody()
            form.file("file", filename: "recording.webm", contentType: "audio/webm;codecs=opus", webm.data)
            try await fixture.client.execute(uri: "/api/v1/transcriptions", method: .post, headers: form.headers, body: form.buffer) { response in
                #expect(response.status == .ok)
                #expect((response.object["text"] as? String)?.lowercased().contains("capital") == true, "\(response.text)")
            }
            var junk = MultipartBody()
            junk.file("file", filename: "noise.bin", contentType: "application/octet-stream", Data(repeating: 7, count: 400))
            try await fixture.client.execute(uri: "/api/v1/transcriptions", method: .post, headers: junk.headers, body: junk.buffer) { response in
                #expect(response.status == .unsupportedMediaType)
            }
            // A spoken question: transcript, answer, and where to hear it.
            fixture.model.handle(chatPath) { _ in .chatStream(["Paris."]) }
            let conversation = try await TurnRoutesTests.conversation(fixture.client)
            let ogg = try await AudioConverter().encode(AudioFile(data: wav, format: .wav), as: .ogg)
            var voice = MultipartBody()
            voice.file("file", filename: "question.ogg", contentType: "audio/ogg", ogg.data)
            try await fixture.client.execute(uri: "/api/v1/conversations/\(conversation)/voice", method: .post, headers: voice.headers, body: voice.buffer) { response in
                let all = events(in: response.text)
                #expect(all.first?.name == "transcript")
                #expect(all.contains { $0.name == "finished" })
                let speech = try #require(all.first { $0.name == "speech" }?.json?["url"] as? String)
                try await fixture.client.execute(uri: speech, method: .get) { spoken in
                    #expect(spoken.headers[.contentType] == "audio/wav")
                }
            }
            // speak=sentences: each sentence spoken as it is written, then the stage times, also logged.
            fixture.model.handle(chatPath) { request in
                request.json?["stream"] as? Bool == true ? .chatStream(["Paris is the capital. ", "It is on the Seine."]) : .chatCompletion("Capital")
            }
            var spoken = MultipartBody()
            spoken.file("file", filename: "question.wav", contentType: "audio/wav", wav)
            spoken.field("speak", "sentences")
            try await fixture.client.execute(uri: "/api/v1/conversations/\(conversation)/voice", method: .post, headers: spoken.headers, body: spoken.buffer) { response in
                let all = events(in: response.text)
                let sentences = all.filter { $0.name == "spoken" }.compactMap(\.json)
                #expect(sentences.compactMap { $0["text"] as? String } == ["Paris is the capital.", "It is on the Seine."])
                #expect(sentences.compactMap { $0["index"] as? Int } == [0, 1])
                for sentence in sentences {
                    let audio = try #require(Data(base64Encoded: sentence["audio"] as? String ?? ""))
                    #expect(sentence["mimeType"] as? String == "audio/wav")
                    #expect(try WAVAudio(parsing: audio).duration > 0.5)
                }
                #expect(all.last?.name == "timings", "\(all.map(\.name))")
                let timings = try #require(all.last?.json)
                let firstToken = try #require(timings["firstToken"] as? Int)
                let firstAudio = try #require(timings["firstAudio"] as? Int)
                #expect(firstAudio >= firstToken, "a sentence is spoken after its words are written")
                #expect(timings["transcribe"] as? Int ?? 0 > 0)
            }
            try await fixture.client.execute(uri: "/api/v1/logs?operation=voice", method: .get) { response in
                let messages = response.array.compactMap { $0["message"] as? String }
                #expect(messages.contains { $0.hasPrefix("spoken question answered: transcript") && $0.contains("first audio") }, "\(messages)")
            }
            var silence = MultipartBody()
            silence.file("file", filename: "silence.wav", contentType: "audio/wav", AudioResampling.wav(pcm16: [Int16](repeating: 0, count: 32_000), sampleRate: 16_000).encoded())
            try await fixture.client.execute(uri: "/api/v1/conversations/\(conversation)/voice", method: .post, headers: silence.headers, body: silence.buffer) { response in
                #expect(response.status == .unprocessableContent)
                #expect(response.errorCode == "no_speech")
            }
            // The same engines through the OpenAI-compatible endpoints.
            try await fixture.client.execute(uri: "/v1/audio/speech", method: .post, headers: jsonHeaders, body: jsonBody(["model": "tts-1", "voice": "alloy", "input": "Hi"])) { response in
                #expect(response.headers[.contentType] == "audio/mpeg")
            }
            try await fixture.client.execute(uri: "/v1/embeddings", method: .post, headers: jsonHeaders, body: jsonBody(["model": "sibyl-embeddings", "input": ["a", "b"]])) { response in
                let data = response.object["data"] as? [[String: Any]]
                #expect(data?.count == 2)
                #expect((data?.first?["embedding"] as? [Any])?.count == 384)
            }
            try await fixture.client.execute(uri: "/v1/embeddings", method: .post, headers: jsonHeaders, body: jsonBody(["model": "sibyl-embeddings", "input": [1, 2, 3]])) { response in
                #expect(response.status == .badRequest)
            }
        }
    }
}
