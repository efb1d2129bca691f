import Assistant
public import Foundation
import FrameGlasses
public import Glasses
import Monocle
import SibylConfig
public import SibylCore

extension SibylRuntime.Glasses {
    /// A glasses session over any transport: a connection keeps Sibyl's app on glasses of `kind`
    /// (Monocle: tap to speak, hold for a photo question; Frame: tap to speak, double-tap for a photo
    /// question), and questions are answered with vision and grounding as everywhere else, every
    /// exchange saved in one conversation with source `glasses`.
    public func session(transport: any GlassesTransport, kind: GlassesKind, options: GlassesSessionOptions = GlassesSessionOptions()) throws -> GlassesSession {
        let options = speaking(wearerLanguage(options.language, hint: options.languageHint), options)
        return try session(connection: GlassesConnection.sibyl(kind: kind, transport: transport, options: options), options: options)
    }

    /// The language the wearer speaks: the one given, else `glasses.language`, else the voice's
    /// language or the surroundings' (`hint`: the page's, the terminal's).
    func wearerLanguage(_ language: String?, hint: String?) -> String? {
        let settings = runtime.settings
        return language ?? settings[.glassesLanguage] ?? SibylRuntime.Voice.spokenLanguage(setting: settings[.voiceLanguage], hint: hint)
    }

    /// `options` with the apps' own words on the glasses in `language` (English where the glasses cannot write it).
    func speaking(_ language: String?, _ options: GlassesSessionOptions) -> GlassesSessionOptions {
        var options = options
        let prompts = GlassesPrompts.forLanguage(language)
        options.monocle.prompts = prompts
        options.frame.prompts = prompts
        return options
    }

    /// A session over a connection of any kind.
    public func session(connection: GlassesConnection, options: GlassesSessionOptions = GlassesSessionOptions()) throws -> GlassesSession {
        let settings = runtime.settings
        var assistantOptions = GlassesAssistant.Options()
        assistantOptions.persona = options.persona ?? settings[.glassesPersona]
        assistantOptions.mode = (options.translateTo ?? settings[.glassesTranslateTo]).map { .translator(target: $0) } ?? .chat
        assistantOptions.language = wearerLanguage(options.language, hint: options.languageHint)
        assistantOptions.documents = options.documents ?? (settings[.glassesDocuments] ? DocumentScope() : nil)
        assistantOptions.visionModel = options.visionModel ?? settings[.glassesVisionModel]
        assistantOptions.prompts = GlassesPrompts.forLanguage(assistantOptions.language)
        // The recording is heard as it arrives: the words show as they form, and Sibyl ends the
        // question when it hears its end (the voice detector, and whether the words end a sentence).
        let voice = runtime.voice
        let transcription = TranscriptionOptions(language: assistantOptions.language)
        let assistant = GlassesAssistant(
            connection: connection, asker: runtime.conversations, transcriber: try runtime.providers.transcriber(),
            listening: { try voice.listener(transcription: transcription) }, options: assistantOptions
        )
        return GlassesSession(connection: connection, assistant: assistant) { [runtime] event in
            switch event {
            case .answered(_, _, let timings):
                await runtime.log(.info, .glasses, "answered a question from the glasses", details: GlassesLogDetails(timings))
            case .failed(let shown, let detail):
                await runtime.log(.warning, .glasses, "a question from the glasses failed: \(detail)", details: ["shown": shown])
            default:
                break
            }
        }
    }
}

extension SibylRuntime.Glasses {
    /// The MicroPython interpreter the virtual Monocle runs (the `emulator` component).
    public var emulatorInterpreter: URL { runtime.local.layout.microPythonModule }
}

/// What the operations log keeps of a question from the glasses: its stage times in milliseconds.
private struct GlassesLogDetails: Encodable {
    var streamed: Bool
    var timingsMs: [String: Int]

    init(_ timings: GlassesTimings) {
        streamed = timings.streamed
        timingsMs = [
            "transfer": timings.audioTransfer.milliseconds, "conversion": timings.audioConversion.milliseconds, "speechToText": timings.speechToText.milliseconds,
            "languageModel": timings.languageModel.milliseconds, "display": timings.display.milliseconds, "firstWords": timings.firstWords.milliseconds,
            "total": timings.total.milliseconds,
        ]
    }
}
