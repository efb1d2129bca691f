import Foundation
import FrameGlasses
import Monocle
import SibylConfig
import SibylCore

/// How a glasses session answers: the settings' choices unless given here.
public struct GlassesSessionOptions: Sendable {
    /// The persona; nil means `glasses.persona` (normally `concise`).
    public var persona: String?
    /// Translate whatever the wearer says into this language.
    public var translateTo: String?
    /// The language the wearer speaks; nil means `glasses.language`.
    public var language: String?
    /// Answer from the wearer's documents.
    public var documents: DocumentScope?
    /// The vision model for photo questions; nil means `glasses.vision_model`.
    public var visionModel: String?
    /// Monocle's controller options: firmware and FPGA images to install, timeouts.
    public var controller: MonocleController.Options
    /// Frame's controller options: timeouts, the expected firmware.
    public var frameController: FrameController.Options

    public init(
        persona: String? = nil, translateTo: String? = nil, language: String? = nil, documents: DocumentScope? = nil, visionModel: String? = nil,
        controller: MonocleController.Options = MonocleController.Options(), frameController: FrameController.Options = FrameController.Options()
    ) {
        self.frameController = frameController
        self.persona = persona
        self.translateTo = translateTo
        self.language = language
        self.documents = documents
        self.visionModel = visionModel
        self.controller = controller
    }
}

/// Glasses linked to Sibyl: the link that keeps their app running, and the assistant that
/// answers what the wearer asks. The same for Monocle and Frame, virtual, over Bluetooth or
/// through the Web Bluetooth relay.
public final class GlassesSession: Sendable {
    public let link: any GlassesLink
    public let assistant: GlassesAssistant

    init(link: any GlassesLink, assistant: GlassesAssistant) {
        self.link = link
        self.assistant = assistant
    }

    /// Serves the glasses until `stop()` (or the link's end), reporting what happens.
    public func run(observer: @escaping @Sendable (GlassesEvent) -> Void = { _ in }) async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.link.run() }
            group.addTask { await self.assistant.run(observer: observer) }
        }
    }

    /// Disconnects and ends `run()`.
    public func stop() async {
        await link.stop()
    }

    /// The conversation the exchanges are saved in, once the wearer asked something.
    public var conversation: UUID? {
        get async { await assistant.conversation }
    }
}

extension SibylRuntime {
    /// A glasses session over any link: the controller keeps Sibyl's app (or `app`) on the glasses,
    /// and questions are answered with vision and grounding as everywhere else, every exchange saved
    /// in one conversation with source `glasses`.
    public func glassesSession(transport: any MonocleTransport, app: DeviceApp? = nil, options: GlassesSessionOptions = GlassesSessionOptions()) throws -> GlassesSession {
        let controller = MonocleController(transport: transport, app: try app ?? DeviceApp.sibyl(), options: options.controller)
        return try glassesSession(link: MonocleGlassesLink(controller: controller), options: options)
    }

    /// A session with Frame glasses: the controller keeps Sibyl's Frame app on them, and the
    /// wearer taps to speak, double-taps for a photo question, and reads the answer.
    public func glassesSession(transport: any FrameTransport, options: GlassesSessionOptions = GlassesSessionOptions()) throws -> GlassesSession {
        let controller = FrameController(transport: transport, app: .sibyl(), options: options.frameController)
        return try glassesSession(link: FrameGlassesLink(controller: controller), options: options)
    }

    /// A session over a link of any kind.
    public func glassesSession(link: any GlassesLink, options: GlassesSessionOptions) throws -> GlassesSession {
        let settings = settings
        var assistantOptions = GlassesAssistant.Options()
        assistantOptions.persona = options.persona ?? settings[.glassesPersona]
        assistantOptions.mode = options.translateTo.map { .translator(target: $0) } ?? .chat
        assistantOptions.language = options.language ?? settings[.glassesLanguage]
        assistantOptions.documents = options.documents
        assistantOptions.visionModel = options.visionModel ?? settings[.glassesVisionModel]
        let assistant = GlassesAssistant(link: link, asker: self, transcriber: try providers.transcriber(), options: assistantOptions)
        return GlassesSession(link: link, assistant: assistant)
    }
}
