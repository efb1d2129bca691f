import Assistant
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Monocle
import MonocleEmulator
import MonocleRelay
import SibylCore

/// Glasses: what is linked, the virtual Monocle run by the server (start, stop, its screen, the
/// wearer's actions), and the Web Bluetooth relay as a WebSocket route on the same router.
struct GlassesRoutes: RouteCollectionAdding {
    let state: ServerState
    var hub: GlassesHub { state.glasses }

    /// A linked pair of glasses.
    struct LinkBody: Codable, Sendable {
        var id: String
        /// `relay` or `emulator`.
        var kind: String
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

        init(_ link: GlassesHub.Link) {
            id = link.id.wireString
            kind = link.kind
            state = String(describing: link.state)
            firmware = link.device?.firmware
            fpga = link.device?.fpga
            app = link.device?.app
            lastQuestion = link.lastQuestion
            lastAnswer = link.lastAnswer
            lastError = link.lastError
            notice = link.notice
            startedAt = link.startedAt
        }
    }

    /// How a glasses session answers.
    struct SessionRequest: Codable, Sendable {
        var persona: String?
        var translateTo: String?
        var language: String?
        var documents: TurnRoutes.DocumentsChoice?

        func options() throws -> GlassesSessionOptions {
            GlassesSessionOptions(persona: persona, translateTo: translateTo, language: language, documents: try documents?.scope())
        }
    }

    /// What the virtual glasses show.
    struct ScreenBody: Codable, Sendable {
        var lines: [String]
        /// Whether the last line drawn is an error (red).
        var error: Bool
    }

    func add(to group: RouterGroup<SibylRequestContext>) {
        group.get("glasses") { _, _ in JSONBody(hub.all.map(LinkBody.init)) }
        group.post("glasses/emulator") { request, _ in
            let body = try await request.json(SessionRequest.self, limit: state.limits.jsonBodyBytes)
            return JSONBody(LinkBody(try await hub.startEmulator(options: try body.options())), status: .created)
        }
        group.delete("glasses/emulator") { _, _ in
            guard await hub.stopEmulator() else { throw APIError.notFound("The virtual Monocle is not running.") }
            return Response(status: .noContent)
        }
        group.get("glasses/emulator/screen") { _, _ in
            let frame = try await emulator().screen
            let texts = frame?.texts ?? []
            return JSONBody(ScreenBody(lines: texts.compactMap(\.text), error: texts.last?.color == 0xAD2323))
        }
        group.post("glasses/emulator/tap") { _, _ in
            try await emulator().tap()
            return Response(status: .accepted)
        }
        group.post("glasses/emulator/hold") { _, _ in
            try await emulator().hold()
            return Response(status: .accepted)
        }
        group.post("glasses/emulator/microphone") { request, _ in
            let form = try await MultipartForm.read(request, limit: state.limits.uploadBytes, maxFiles: 1)
            let audio = try AudioRoutes.audio(in: form)
            guard audio.format == .wav else { throw APIError(.unsupportedMediaType, code: "unsupported_audio", "The virtual microphone takes WAV.") }
            try await emulator().speak(wav: audio.data)
            return Response(status: .accepted)
        }
        let options = GlassesSessionOptions()
        group.addMonocleRelay(at: "glasses/relay") { transport in
            await hub.serveRelay(transport, options: options)
        }
    }

    private func emulator() throws -> MonocleEmulator {
        guard let emulator = hub.emulator else { throw APIError.notFound("The virtual Monocle is not running: start it with POST /api/v1/glasses/emulator.") }
        return emulator
    }
}
