public import Assistant
public import Foundation
public import Glasses
import SibylConfig
public import SibylCore

/// How live captions run: the settings' choices unless given here.
public struct CaptionOptions: Sendable {
    /// Translate the captions into this language (ISO 639-1); nil: show them as heard. English
    /// comes straight from Whisper; other languages through the chat model, line by line.
    public var translateTo: String?
    /// The language spoken around the wearer; nil means `glasses.language`, else detected.
    public var language: String?
    /// The language of the wearer's surroundings (the terminal's, the page's), used when neither
    /// `language` nor the settings say.
    public var languageHint: String?

    public init(translateTo: String? = nil, language: String? = nil, languageHint: String? = nil) {
        self.translateTo = translateTo
        self.language = language
        self.languageHint = languageHint
    }
}

/// Live captions on linked glasses, with their transcript kept in a conversation with source
/// `captions` (started with the first line).
public final class GlassesCaptionsSession: Sendable {
    public let connection: GlassesConnection
    public let captions: GlassesCaptions
    private let transcript: CaptionTranscript

    init(connection: GlassesConnection, captions: GlassesCaptions, transcript: CaptionTranscript) {
        self.connection = connection
        self.captions = captions
        self.transcript = transcript
    }

    /// Captions until `stop()` (or the connection's end), reporting what happens.
    public func run(observer: @escaping @Sendable (GlassesCaptions.Event) -> Void = { _ in }) async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.connection.run() }
            group.addTask { await self.captions.run(observer: observer) }
        }
    }

    /// Ends captions (the line being spoken is finished and kept) and disconnects.
    public func stop() async {
        await captions.stop()
        await connection.stop()
    }

    /// The conversation the transcript is kept in, once a line was heard.
    public var conversation: UUID? {
        get async { await transcript.conversation }
    }
}

/// Where a captions session's lines are written.
actor CaptionTranscript {
    private let conversations: SibylRuntime.Conversations
    private let engine: ConversationEngine
    private let mode: ConversationMode
    private(set) var conversation: UUID?

    init(runtime: SibylRuntime, mode: ConversationMode) {
        conversations = runtime.conversations
        engine = runtime.engine
        self.mode = mode
    }

    /// The conversation, started on first use.
    func id() async throws -> UUID {
        if let conversation { return conversation }
        let started = try await conversations.start(NewConversation(mode: mode, source: .captions), title: "Live captions")
        conversation = started.id
        return started.id
    }

    /// Keeps a line as heard.
    func keep(_ line: String) async throws {
        try await engine.record(transcript: line, in: try await id())
    }

    /// Translates a line in the (translator) conversation, which keeps both.
    func translate(_ line: String) async throws -> String {
        let result = try await conversations.ask(AskRequest(line, conversation: .id(try await id())))
        switch result.outcome {
        case .declined(let declined):
            return declined.reply.text
        case .answering(let turn):
            var text = ""
            for await event in turn.events() {
                switch event {
                case .delta(let delta): text += delta
                case .finished(let message): return message.text
                case .failed(_, let error): throw CaptionTranslationFailed(reason: error.text)
                case .cancelled: throw CancellationError()
                case .started, .usage, .historyTrimmed, .titled, .toolCalled, .toolAnswered: break
                }
            }
            return text
        }
    }
}

/// The chat model could not translate a caption line.
struct CaptionTranslationFailed: Error, LocalizedError {
    var reason: String
    var errorDescription: String? { "the translation failed: \(reason)" }
}

extension SibylRuntime.Glasses {
    /// Live captions on glasses of `kind` reached through `transport`: Sibyl's app streams the
    /// microphone, the lines show as they are said (translated when asked), a tap pauses and
    /// resumes, and the transcript is kept in a conversation with source `captions`.
    public func captions(transport: any GlassesTransport, kind: GlassesKind, options: CaptionOptions = CaptionOptions(), session: GlassesSessionOptions = GlassesSessionOptions()) throws -> GlassesCaptionsSession {
        let session = speaking(wearerLanguage(options.language, hint: options.languageHint), session)
        let connection = try GlassesConnection.sibyl(kind: kind, transport: transport, options: session)
        return try captions(connection: connection, options: options)
    }

    /// Live captions over a connection of any kind.
    public func captions(connection: GlassesConnection, options: CaptionOptions = CaptionOptions()) throws -> GlassesCaptionsSession {
        let language = wearerLanguage(options.language, hint: options.languageHint)
        let target = options.translateTo.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.flatMap { $0.isEmpty ? nil : $0 }
        // English comes straight from Whisper's own translation; other targets line by line from
        // the chat model, in a translator conversation that keeps both.
        let whisperTranslates = target == "en" && language != "en"
        let chatTranslates = target != nil && !whisperTranslates && target != language
        let transcription = TranscriptionOptions(translate: whisperTranslates, language: language)
        let transcript = CaptionTranscript(runtime: runtime, mode: chatTranslates ? .translator(target: target ?? "en") : .chat)
        let voice = runtime.voice
        let detection = captionDetection()
        let captioner = LiveCaptioner {
            try voice.listener(transcription: transcription, detection: detection)
        }
        var translate: GlassesCaptions.Translator?
        if chatTranslates { translate = { @Sendable line in try await transcript.translate(line) } }
        let runtime = self.runtime
        let keep: GlassesCaptions.Keeper = { line, translation in
            guard translation == nil || !chatTranslates else { return } // the translator kept both
            do {
                try await transcript.keep(line)
            } catch {
                await runtime.log(.warning, .glasses, "a caption line could not be kept: \(error.localizedDescription)")
            }
        }
        let captions = GlassesCaptions(connection: connection, captioner: captioner, translate: translate, keep: keep)
        return GlassesCaptionsSession(connection: connection, captions: captions, transcript: transcript)
    }

    /// The voice detector for captions: the settings', with lines of at most 8 s (each partial
    /// transcript reads the whole line so far, which must stay quick, and a line that does not end
    /// would never be kept) and a long wait for speech (a quiet room is not an error; the listener
    /// starts over).
    func captionDetection() -> VoiceActivityDetector.Configuration {
        let silero = runtime.settings[.voiceDetector] == .silero && runtime.local.voiceDetector.isInstalled
        var detection = runtime.voice.detection(hearingSpeech: silero)
        detection.maximumSpeech = min(detection.maximumSpeech, Self.longestCaptionLine)
        detection.waitForSpeech = .seconds(30)
        return detection
    }

    /// The longest stretch of speech one caption line holds.
    static let longestCaptionLine = Duration.seconds(8)
}
