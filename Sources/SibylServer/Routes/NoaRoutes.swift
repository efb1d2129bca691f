import Assistant
import Foundation
import HTTPTypes
import Hummingbird
import SibylApp
import SibylCore

/// Brilliant's Noa phone app, pointed at Sibyl with its Custom Server setting: `POST /api/v1/noa`
/// takes the app's `multipart/form-data` question (`audio`: a WAV of Frame's 8 kHz 8-bit samples,
/// `image`: a JPEG when a photo was taken, `messages`: its history as JSON, `location`, `time`)
/// and answers the JSON the app reads (`user_prompt`, `message`, `debug.topic_changed`, and
/// `image`/`audio` in base64 when there are). The app shows a refusal's status and reason
/// phrase, so each refusal has the status that names what went wrong. `POST /api/v1/noa/mm`
/// answers as the open-source Noa server's `/mm` does. `GET /api/v1/noa/setup` tells the
/// Settings page what to type into the app.
struct NoaRoutes: RouteCollectionAdding {
    let state: ServerState

    /// The reply, with the app's field names.
    struct Reply: Encodable {
        var userPrompt: String
        var message: String
        var debug: Debug
        var image: String?
        var audio: String?

        struct Debug: Encodable {
            var topicChanged: Bool
            var similarity: Double?
            var conversationId: String
            var photoLookedAt: Bool
            var timingsMs: [String: Int]

            enum CodingKeys: String, CodingKey {
                case topicChanged = "topic_changed", similarity, conversationId = "conversation_id", photoLookedAt = "photo_looked_at", timingsMs = "timings_ms"
            }
        }

        enum CodingKeys: String, CodingKey {
            case userPrompt = "user_prompt", message, debug, image, audio
        }
    }

    /// What the Settings page shows for setting the app up.
    struct Setup: Codable {
        /// URLs a phone on the same network can use, best first.
        var endpoints: [String]
        /// The server listens on the loopback interface only: no phone can reach it.
        var loopbackOnly: Bool
        /// The header the token goes in ("API Header Key" in the app).
        var headerName: String
        /// Whether the app must send a token ("API Header Value": `Bearer TOKEN`).
        var tokenRequired: Bool
    }

    func add(to group: RouterGroup<SibylRequestContext>) {
        group.post("noa") { request, context in
            let (reply, received) = try await answer(request, context: context, reading: Self.question(in:))
            var timings = reply.timings.milliseconds
            timings["receive"] = received.milliseconds
            let body = Reply(
                userPrompt: reply.transcript, message: reply.message,
                debug: .init(
                    topicChanged: reply.topicChanged, similarity: reply.topic.similarity.map { ($0 * 1000).rounded() / 1000 },
                    conversationId: reply.conversationID.wireString, photoLookedAt: reply.photoLookedAt, timingsMs: timings
                ),
                image: reply.image?.data.base64EncodedString(), audio: reply.speech?.data.base64EncodedString()
            )
            return try JSONBody(body).response(status: .ok)
        }
        // The open-source Noa server's route (brilliantlabsAR/noa-assistant, `POST /mm`), so that
        // tools written for it (its run_benchmark.py, say) can ask Sibyl too.
        group.post("noa/mm") { request, context in
            let (reply, _) = try await answer(request, context: context, reading: Self.multimodalQuestion(in:))
            return try JSONBody(MultimodalReply(reply)).response(status: .ok)
        }
        group.get("noa/setup") { request, _ in
            JSONBody(Self.setup(for: request, listeningOn: state.listenHost, secure: state.secureCookies, tokenRequired: state.accounts != nil))
        }
    }

    /// Reads a question from the request's form with `reading` and answers it in one of the
    /// client's answer slots; also how long receiving the request took. Failures become refusals.
    private func answer(
        _ request: Request, context: SibylRequestContext, reading: (MultipartForm) throws -> NoaQuestion
    ) async throws -> (NoaReply, received: Duration) {
        let receiving = ContinuousClock.now
        do {
            let runtime = try await state.runtime(for: context)
            let question = try reading(try await MultipartForm.read(request, limit: state.limits.uploadBytes, maxFiles: 2))
            let received = ContinuousClock.now - receiving
            let (reply, slot) = try await state.withTurnSlot(for: context.ownerKey) { try await runtime.glasses.answer(question) }
            slot.free()
            return (reply, received)
        } catch {
            throw Self.refusal(error)
        }
    }

    /// The `image` part, when there is one: a picture (JPEG, PNG, WebP or GIF), else refused.
    static func photo(in form: MultipartForm) throws -> Data? {
        guard let photo = form.file("image")?.data, !photo.isEmpty else { return nil }
        guard ImageSniffer.mimeType(of: photo) != nil else {
            throw APIError(.unsupportedMediaType, code: "invalid_image", "The 'image' part is not a JPEG, PNG, WebP or GIF picture.", parameter: "image")
        }
        return photo
    }

    /// The question in the app's form; `messages` that is not a JSON list of `{role, content}` is refused.
    static func question(in form: MultipartForm) throws -> NoaQuestion {
        guard let audio = form.file("audio"), !audio.data.isEmpty else {
            throw APIError(.badRequest, code: "no_audio", "The request has no audio file (the 'audio' part).", parameter: "audio")
        }
        var history: [TopicShift.Turn] = []
        if let messages = form.field("messages") {
            do {
                history = try JSONDecoder().decode([TopicShift.Turn].self, from: Data(messages.utf8))
            } catch {
                throw APIError(.badRequest, code: "invalid_messages", "'messages' is not a JSON list of {role, content}.", parameter: "messages")
            }
        }
        return NoaQuestion(audio: audio.data, photo: try photo(in: form), history: history, place: form.field("location"), time: form.field("time"))
    }

    /// `/mm`'s `mm` field: the parts of noa-assistant's `MultimodalRequest` Sibyl uses (the rest,
    /// its choice of search engines, models and keys, is the server's own business here).
    struct MultimodalRequest: Decodable {
        var messages: [TopicShift.Turn]?
        var prompt: String?
        var localTime: String?
        var address: String?
        var generateImage: Int?

        enum CodingKeys: String, CodingKey {
            case messages, prompt, localTime = "local_time", address, generateImage = "generate_image"
        }
    }

    /// `/mm`'s reply, noa-assistant's `MultimodalResponse`: every field present, `timings` a JSON
    /// text (its clients decode it again), `image` a data URL or empty.
    struct MultimodalReply: Encodable {
        var userPrompt: String
        var response: String
        var image: String
        var tokenUsageByModel: [String: [String: Int]] = [:]
        var capabilitiesUsed: [String]
        var totalTokens = 0
        var inputTokens = 0
        var outputTokens = 0
        var timings: String
        var debugTools: String

        init(_ reply: NoaReply) {
            userPrompt = reply.transcript
            response = reply.image == nil ? reply.message : ""
            image = reply.image.map { "data:\($0.mimeType);base64,\($0.data.base64EncodedString())" } ?? ""
            capabilitiesUsed = reply.image != nil ? ["image_generation"] : reply.photoLookedAt ? ["vision"] : ["assistant_knowledge"]
            let seconds = reply.timings.milliseconds.mapValues { Double($0) / 1000 }
            timings = (try? JSONEncoder().encode(seconds)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
            debugTools = "conversation \(reply.conversationID.wireString); topic_changed \(reply.topicChanged)"
        }

        enum CodingKeys: String, CodingKey {
            case userPrompt = "user_prompt", response, image, tokenUsageByModel = "token_usage_by_model", capabilitiesUsed = "capabilities_used"
            case totalTokens = "total_tokens", inputTokens = "input_tokens", outputTokens = "output_tokens", timings, debugTools = "debug_tools"
        }
    }

    /// The question of a `/mm` request: the `mm` JSON, an optional `audio` file in any format and an
    /// optional `image`.
    static func multimodalQuestion(in form: MultipartForm) throws -> NoaQuestion {
        guard let text = form.field("mm") else {
            throw APIError(.badRequest, code: "no_mm", "The request has no 'mm' field (the question as JSON).", parameter: "mm")
        }
        let mm: MultimodalRequest
        do {
            mm = try JSONDecoder().decode(MultimodalRequest.self, from: Data(text.utf8))
        } catch {
            throw APIError(.badRequest, code: "invalid_mm", "'mm' is not the JSON of a multimodal request: \(error.localizedDescription)", parameter: "mm")
        }
        let audio = form.file("audio")?.data ?? Data()
        guard !audio.isEmpty || mm.prompt?.contains(where: { !$0.isWhitespace }) == true else {
            throw APIError(.badRequest, code: "no_question", "Send an 'audio' file, a 'prompt' in 'mm', or both.", parameter: "audio")
        }
        var question = NoaQuestion(audio: audio, photo: try photo(in: form), history: mm.messages ?? [], place: mm.address, time: mm.localTime, typed: mm.prompt)
        question.drawPicture = (mm.generateImage ?? 0) != 0
        return question
    }

    /// The API error for a failure. The app shows the status and its standard reason phrase (Sibyl's
    /// HTTP/1 encoder, NIO's, writes the standard phrase for every known status), so each refusal
    /// has the status whose phrase fits: 400 a request the app did not make, 401 a wrong token,
    /// 413 too large, 422 a recording with no speech or none Sibyl can read, 503 no answer possible
    /// now. The body says it in full.
    static func refusal(_ error: any Error) -> APIError {
        guard let failure = error as? NoaFailure else { return APIError.from(error) }
        let message = failure.localizedDescription
        switch failure {
        case .unreadableAudio: return APIError(.unprocessableContent, code: "unreadable_audio", message, parameter: "audio")
        case .noSpeech: return APIError(.unprocessableContent, code: "no_speech", message, parameter: "audio")
        case .unavailable: return APIError(.serviceUnavailable, code: "unavailable", message)
        }
    }

    /// Where a phone can reach this server: the address the page was opened at when it is not a
    /// loopback one, then every other address of this machine's network interfaces (when the
    /// server listens on all of them).
    static func setup(for request: Request, listeningOn host: String, secure: Bool, tokenRequired: Bool) -> Setup {
        let scheme = secure ? "https" : "http"
        let (pageHost, port) = hostAndPort(request.head.authority ?? "", defaultPort: secure ? 443 : 80)
        let loopbackOnly = AuthSetting.isLoopback(host)
        var hosts: [String] = []
        if !loopbackOnly {
            if !pageHost.isEmpty, !AuthSetting.isLoopback(pageHost) { hosts.append(pageHost) }
            if NetworkAddresses.isWildcard(host) {
                hosts += NetworkAddresses.interfaceIPv4().filter { !hosts.contains($0) }
            } else if !hosts.contains(host) {
                hosts.append(host)
            }
        }
        let portPart = (secure && port == 443) || (!secure && port == 80) ? "" : ":\(port)"
        let endpoints = hosts.map { host in "\(scheme)://\(host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host)\(portPart)/api/v1/noa" }
        return Setup(endpoints: endpoints, loopbackOnly: loopbackOnly, headerName: "Authorization", tokenRequired: tokenRequired)
    }

    /// "host:port", "[::1]:port" or "host" split.
    static func hostAndPort(_ authority: String, defaultPort: Int) -> (String, Int) {
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            let host = String(authority[authority.index(after: authority.startIndex)..<close])
            let rest = authority[authority.index(after: close)...]
            return (host, rest.hasPrefix(":") ? Int(rest.dropFirst()) ?? defaultPort : defaultPort)
        }
        let parts = authority.split(separator: ":", maxSplits: 1)
        return (parts.first.map(String.init) ?? "", parts.count == 2 ? Int(parts[1]) ?? defaultPort : defaultPort)
    }
}
