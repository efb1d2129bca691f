import Assistant
import Foundation
import Hummingbird
import Knowledge
import SibylApp
import SibylCore

/// OpenAI-compatible endpoints under `/v1`, so any OpenAI client can use Sibyl's engines, personas
/// and documents: personas appear as models (`sibyl-assistant`, and `sibyl-assistant-docs`, which
/// answers from the user's documents with its sources listed after the answer).
struct OpenAICompatibleRoutes: Sendable {
    let state: ServerState

    /// The model names of the other endpoints.
    static let embeddingModels: Set<String> = ["sibyl-embeddings"]
    static let transcriptionModels: Set<String> = ["sibyl-transcribe", "whisper-1", "gpt-4o-transcribe", "gpt-4o-mini-transcribe"]
    static let speechModels: Set<String> = ["sibyl-speech", "tts-1", "tts-1-hd", "gpt-4o-mini-tts"]

    func add(to group: RouterGroup<SibylRequestContext>) {
        group.get("models") { _, context in await JSONBody(OpenAIWire.ModelList(data: try models(of: state.runtime(for: context)))) }
        group.get("models/:model") { _, context in
            let id = try context.parameters.require("model")
            guard let model = try await models(of: state.runtime(for: context)).first(where: { $0.id == id }) else { throw Self.unknownModel(id) }
            return JSONBody(model)
        }
        group.post("chat/completions") { request, context in
            let body = try await request.json(OpenAIWire.ChatRequest.self, limit: state.limits.uploadBytes)
            return try await ChatCompletions(state: state, runtime: state.runtime(for: context)).respond(to: body, client: context.ownerKey)
        }
        group.post("embeddings") { request, context in
            let body = try await request.json(OpenAIWire.EmbeddingRequest.self, limit: state.limits.jsonBodyBytes)
            return JSONBody(try await embeddings(body, runtime: state.runtime(for: context)))
        }
        group.post("audio/transcriptions") { request, context in
            let form = try await MultipartForm.read(request, limit: state.limits.uploadBytes, maxFiles: 1)
            return try await transcription(form, runtime: state.runtime(for: context)).response(from: request, context: context)
        }
        group.post("audio/speech") { request, context in
            let runtime = try await state.runtime(for: context)
            let body = try await request.json(OpenAIWire.SpeechRequest.self, limit: state.limits.jsonBodyBytes)
            guard Self.speechModels.contains(body.model) else { throw Self.unknownModel(body.model) }
            guard body.input.count <= 4096 else { throw APIError(.badRequest, code: "string_above_max_length", "'input' is longer than 4,096 characters.", parameter: "input") }
            let options = try AudioRoutes.speechOptions(voice: body.voice, format: body.responseFormat ?? "mp3", speed: body.speed)
            let audio = try await runtime.voice.speak(body.input, options: options)
            return try BytesBody(data: audio.data, contentType: audio.format.mimeType).response(from: request, context: context)
        }
    }

    /// Every persona as a model (and its `-docs` twin), then the models of the other endpoints.
    func models(of runtime: SibylRuntime) async throws -> [OpenAIWire.Model] {
        let created = 1_735_689_600
        var ids = try await runtime.conversations.personas().flatMap { ["sibyl-\($0.name)", "sibyl-\($0.name)-docs"] }
        ids += ["sibyl-embeddings", "sibyl-transcribe", "sibyl-speech"]
        return ids.map { OpenAIWire.Model(id: $0, created: created) }
    }

    /// OpenAI's answer for a model it does not know.
    static func unknownModel(_ name: String) -> APIError {
        APIError(.notFound, code: "model_not_found", "The model '\(name)' does not exist. GET /v1/models lists Sibyl's models (sibyl-PERSONA, sibyl-PERSONA-docs).", parameter: "model")
    }

    private func embeddings(_ body: OpenAIWire.EmbeddingRequest, runtime: SibylRuntime) async throws -> OpenAIWire.EmbeddingList {
        let setup = try await runtime.documents.embedder()
        guard Self.embeddingModels.contains(body.model) || body.model == setup.model else { throw Self.unknownModel(body.model) }
        guard case .texts(let texts) = body.input else {
            throw APIError(.badRequest, code: "invalid_input", "'input' must be a string or an array of strings; token arrays are not supported.", parameter: "input")
        }
        guard !texts.isEmpty, texts.count <= 2048 else { throw APIError(.badRequest, code: "invalid_input", "'input' must hold 1 to 2,048 texts.", parameter: "input") }
        guard !texts.contains(where: \.isEmpty) else { throw APIError(.badRequest, code: "invalid_input", "'input' must not contain empty strings.", parameter: "input") }
        let base64: Bool
        switch body.encodingFormat ?? "float" {
        case "float": base64 = false
        case "base64": base64 = true
        default: throw APIError(.badRequest, code: "invalid_value", "'encoding_format' is float or base64.", parameter: "encoding_format")
        }
        let outcome = try await runtime.documents.embed(texts)
        if let dimensions = body.dimensions, dimensions != outcome.vectors.first?.count {
            throw APIError(.badRequest, code: "invalid_value", "This embedding model has \(outcome.vectors.first?.count ?? 0) fixed dimensions; leave 'dimensions' out.", parameter: "dimensions")
        }
        let data = outcome.vectors.enumerated().map { index, vector in
            OpenAIWire.Embedding(index: index, embedding: base64 ? .base64(Self.base64(vector)) : .floats(vector))
        }
        return OpenAIWire.EmbeddingList(data: data, model: body.model, usage: .init(promptTokens: outcome.tokens, totalTokens: outcome.tokens))
    }

    /// Little-endian 32-bit floats, base64: what OpenAI's SDKs decode.
    static func base64(_ vector: [Float]) -> String {
        var bytes = [UInt8]()
        bytes.reserveCapacity(vector.count * 4)
        for value in vector { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) } }
        return Data(bytes).base64EncodedString()
    }

    private func transcription(_ form: MultipartForm, runtime: SibylRuntime) async throws -> any ResponseGenerator {
        let model = form.field("model") ?? ""
        guard Self.transcriptionModels.contains(model) else { throw Self.unknownModel(model) }
        let audio = try AudioRoutes.audio(in: form)
        let format = form.field("response_format") ?? "json"
        let subtitles: TranscriptFormat
        switch format {
        case "json", "text", "verbose_json": subtitles = .text
        case "srt": subtitles = .srt
        case "vtt": subtitles = .vtt
        default: throw APIError(.badRequest, code: "invalid_value", "'response_format' is json, text, srt, verbose_json or vtt.", parameter: "response_format")
        }
        let options = TranscriptionOptions(language: form.field("language"), prompt: form.field("prompt"), temperature: form.field("temperature").flatMap(Double.init), format: subtitles)
        let result = try await runtime.voice.transcribe(audio, options: options)
        switch format {
        case "json": return JSONBody(OpenAIWire.Transcription(text: result.text))
        case "verbose_json": return JSONBody(OpenAIWire.VerboseTranscription(language: result.language ?? "unknown", duration: result.duration ?? 0, text: result.text))
        default: return BytesBody(data: Data(result.text.utf8), contentType: "text/plain; charset=utf-8")
        }
    }
}
