import Assistant
import Foundation
import Hummingbird
import HummingbirdWebSocket
import GlassesRelay
import MonocleEmulator
import SibylApp
import SibylCore

/// Glasses: what is linked, the virtual Monocle run by the server (start, stop, its screen, the
/// wearer's actions), and the Web Bluetooth relay as a WebSocket route on the same router. Each
/// account has its own: what its wearer asks is kept with its conversations, and no one else sees it.
struct GlassesRoutes: RouteCollectionAdding {
    let state: ServerState
    var hub: GlassesHub { state.glasses }

    /// A linked pair of glasses.
    struct LinkBody: Codable, Sendable {
        var id: String
        /// `relay` or `emulator`.
        var kind: String
        /// Which glasses: `monocle` or `frame`.
        var glasses: String
        /// The link's state in words (`running`, `uploading app 1/1`, `disconnected` …).
        var state: String
        var firmware: String?
        var fpga: String?
        var app: String?
        var lastQuestion: String?
        var lastAnswer: String?
        var lastError: String?
        var notice: String?
        var startedAt: Date
        /// `assistant` or `captions`.
        var mode: String
        /// Live captions: the last lines shown, the one being spoken last; and whether paused.
        var captions: [String]?
        var paused: Bool?

        init(_ link: GlassesHub.Link) {
            id = link.id.wireString
            kind = link.kind
            glasses = link.glasses
            state = link.state.description
            firmware = link.device?.firmware
            fpga = link.device?.fpga
            app = link.device?.app
            lastQuestion = link.lastQuestion
            lastAnswer = link.lastAnswer
            lastError = link.lastError
            notice = link.notice
            startedAt = link.startedAt
            mode = link.mode
            if link.mode == "captions" {
                captions = link.forming.isEmpty ? link.captionLines : link.captionLines + [link.forming]
                paused = link.paused
            }
        }
    }

    /// How a glasses session answers.
    struct SessionRequest: Codable, Sendable {
        var persona: String?
        var translateTo: String?
        var language: String?
        var languageHint: String?
        var documents: TurnRoutes.DocumentsChoice?
        /// Live captions instead of questions (`translateTo` then translates the captions).
        var captions: Bool?

        func options() throws -> GlassesSessionOptions {
            var options = GlassesSessionOptions(persona: persona, translateTo: translateTo, language: language, documents: try documents?.scope())
            options.languageHint = languageHint
            return options
        }

        /// Live captions' choices, when captions were asked for.
        var captionOptions: CaptionOptions? {
            captions == true ? CaptionOptions(translateTo: translateTo, language: language, languageHint: languageHint) : nil
        }
    }

    /// What the virtual glasses show.
    struct ScreenBody: Codable, Sendable {
        var lines: [String]
        /// Whether the last line drawn is an error (red).
        var error: Bool
    }

    func add(to group: RouterGroup<SibylRequestContext>) {
        group.get("glasses") { _, context in
            _ = try await state.workspace(for: context)
            return JSONBody(hub.links(of: context.dataOwner).map(LinkBody.init))
        }
        group.post("glasses/emulator") { request, context in
            let runtime = try await state.runtime(for: context)
            let body = try await request.json(SessionRequest.self, limit: state.limits.jsonBodyBytes)
            return JSONBody(LinkBody(try await hub.startEmulator(runtime: runtime, owner: context.dataOwner, options: try body.options(), captions: body.captionOptions)), status: .created)
        }
        group.delete("glasses/emulator") { _, context in
            let runtime = try await state.runtime(for: context)
            guard await hub.stopEmulator(of: context.dataOwner, runtime: runtime) else { throw APIError.notFound("Your virtual Monocle is not running.") }
            return Response(status: .noContent)
        }
        group.get("glasses/emulator/screen") { _, context in
            let frame = try await emulator(context).screen
            let texts = frame?.texts ?? []
            return JSONBody(ScreenBody(lines: texts.compactMap(\.text), error: texts.last?.color == 0xAD2323))
        }
        // The screen drawn as the glasses show it (640×400, true colours and positions, GNU Unifont).
        group.get("glasses/emulator/screen.png") { request, context in
            let frame = try await emulator(context).screen
            let image = frame.map { DisplayImage($0) } ?? DisplayImage()
            var response = try BytesBody(data: image.png(), contentType: "image/png").response(from: request, context: context)
            response.headers[.cacheControl] = "no-store"
            return response
        }
        group.post("glasses/emulator/tap") { _, context in
            try await emulator(context).tap()
            return Response(status: .accepted)
        }
        group.post("glasses/emulator/hold") { _, context in
            try await emulator(context).hold()
            return Response(status: .accepted)
        }
        group.post("glasses/emulator/microphone") { request, context in
            let emulator = try await emulator(context)
            let form = try await MultipartForm.read(request, limit: state.limits.uploadBytes, maxFiles: 1)
            let audio = try AudioRoutes.audio(in: form)
            guard audio.format == .wav else { throw APIError(.unsupportedMediaType, code: "unsupported_audio", "The virtual microphone takes WAV.") }
            try await emulator.speak(wav: audio.data)
            return Response(status: .accepted)
        }
        group.addGlassesRelay(at: "glasses/relay", shouldUpgrade: { request, context in
            try Self.checkOrigin(request)
            _ = try await state.workspace(for: context)
            return .upgrade([:])
        }) { transport, request, context in
            guard let runtime = try? await state.runtime(for: context) else { return }
            var options = GlassesSessionOptions()
            let query = request.uri.queryParameters
            options.languageHint = query.get("languageHint")
            // ?mode=captions: live captions (translated with translateTo) instead of questions.
            let captions = query.get("mode") == "captions"
                ? CaptionOptions(translateTo: query.get("translateTo").flatMap { $0.isEmpty ? nil : $0 }, languageHint: options.languageHint) : nil
            await hub.serveRelay(transport, runtime: runtime, owner: context.dataOwner, options: options, captions: captions)
        }
    }

    /// A page on another site must not open the relay with this server's cookie (cross-site
    /// WebSocket hijacking): a browser always names the page's origin, whose host must be the one
    /// the request was sent to. (Ports are not compared, as cookies do not tell them apart either.)
    static func checkOrigin(_ request: Request) throws {
        let origins = request.headers[values: .origin]
        guard !origins.isEmpty else { return }
        let host = request.head.authority.flatMap { URL(string: "http://\($0)")?.host?.lowercased() }
        for origin in origins {
            guard let host, URL(string: origin)?.host?.lowercased() == host else {
                throw APIError(.forbidden, code: "cross_origin", "This WebSocket must be opened from Sibyl's own pages, not from \(origin.prefix(200)).")
            }
        }
    }

    /// The caller's virtual Monocle, when it runs.
    private func emulator(_ context: SibylRequestContext) async throws -> MonocleEmulator {
        _ = try await state.workspace(for: context)
        guard let emulator = hub.emulator(of: context.dataOwner) else {
            throw APIError.notFound("Your virtual Monocle is not running: start it with POST /api/v1/glasses/emulator.")
        }
        return emulator
    }
}
