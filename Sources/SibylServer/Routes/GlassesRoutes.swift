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
        /// A firmware and FPGA install on this link, when one was asked for.
        var update: UpdateBody?

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
            update = link.update.map(UpdateBody.init)
        }
    }

    /// How an install goes: one progress (0…1) across the firmware and the FPGA image.
    struct UpdateBody: Codable, Sendable {
        var firmware: String?
        var fpga: String?
        /// `firmware` or `fpga` while one is written.
        var step: String?
        var progress: Double
        /// `running`, `done`, `upToDate` or `failed`.
        var outcome: String
        var error: String?

        init(_ update: GlassesHub.UpdateProgress) {
            firmware = update.firmware
            fpga = update.fpga
            step = update.step
            progress = update.progress
            outcome = update.outcome.rawValue
            error = update.error
        }
    }

    /// An uploaded update, checked and waiting for the relay that installs it.
    struct StagedUpdateBody: Codable, Sendable {
        struct Firmware: Codable, Sendable {
            var version: String?
            var bytes: Int
            var signed: Bool
            var hardware: Int
        }

        struct FPGA: Codable, Sendable {
            var version: String
            var bytes: Int
        }

        /// What the page names when it opens the relay that installs it (`?update=`).
        var id: String
        var kind: String
        var firmware: Firmware?
        var fpga: FPGA?

        init(id: UUID, update: GlassesUpdate) {
            self.id = id.wireString
            kind = update.kind.rawValue
            firmware = update.firmware.map {
                Firmware(version: $0.version, bytes: $0.firmware.count, signed: $0.info.signature != nil, hardware: Int($0.info.hardwareVersion))
            }
            fpga = update.fpga.map { FPGA(version: $0.version, bytes: $0.data.count) }
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
        // A firmware package (and, for Monocle, an FPGA image) to install on the glasses the page
        // relays: checked here, then installed by the relay opened with `?update=ID`.
        group.post("glasses/updates") { request, context in
            _ = try await state.workspace(for: context)
            let form = try await MultipartForm.read(request, limit: state.limits.uploadBytes, maxFiles: 2)
            guard let kind = GlassesKind(rawValue: form.field("kind") ?? "monocle") else {
                throw APIError.badRequest("kind is monocle or frame.", code: "invalid_kind")
            }
            let update: GlassesUpdate
            do {
                update = try GlassesUpdate(
                    kind: kind, firmwareZip: form.file("firmware")?.data, firmwareVersion: form.field("firmwareVersion"),
                    fpgaImage: form.file("fpga")?.data, fpgaVersion: form.field("fpgaVersion")
                )
            } catch let invalid as GlassesUpdate.Invalid {
                throw APIError(.unprocessableContent, code: "invalid_update", invalid.reason, parameter: invalid.field?.rawValue)
            }
            let id = hub.stage(update, owner: context.dataOwner)
            return JSONBody(StagedUpdateBody(id: id, update: update), status: .created)
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
            // ?update=ID: install the update staged with that id through this page first.
            let update = query.get("update").flatMap(UUID.init(uuidString:)).flatMap { hub.takeUpdate($0, owner: context.dataOwner) }
            if query.get("update") != nil && update == nil {
                await runtime.log(.warning, .glassesRelay, "the relay named an update that is not staged (already installed, or replaced); serving the glasses without it")
            }
            await hub.serveRelay(transport, runtime: runtime, owner: context.dataOwner, options: options, captions: captions, update: update)
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
