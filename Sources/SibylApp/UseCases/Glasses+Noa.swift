public import Assistant
public import Foundation
import LocalEngines
import SibylConfig
public import SibylCore

/// A question from Brilliant's Noa phone app, asked through its Custom Server setting: what the
/// wearer said (a WAV file the app makes from Frame's 8 kHz 8-bit samples), the photo when one was
/// taken, the app's history since its last change of subject, and where and when it was asked.
public struct NoaQuestion: Sendable {
    /// The recording; empty when the question is typed.
    public var audio: Data
    public var photo: Data?
    public var history: [TopicShift.Turn]
    /// A street address, as the phone's geocoder writes it.
    public var place: String?
    /// The phone's local time as Dart writes it (`2026-11-27 18:30:05.123456`).
    public var time: String?
    /// Words typed with the recording, or instead of it (the Noa server's `/mm` route's `prompt`).
    public var typed: String?
    /// Draw a picture for the question whatever it says (`/mm`'s `generate_image`).
    public var drawPicture = false

    public init(audio: Data, photo: Data? = nil, history: [TopicShift.Turn] = [], place: String? = nil, time: String? = nil, typed: String? = nil) {
        self.audio = audio
        self.typed = typed
        self.photo = photo
        self.history = history
        self.place = place
        self.time = time
    }
}

/// Sibyl's reply to the Noa app.
public struct NoaReply: Sendable {
    /// What was heard.
    public var transcript: String
    /// The answer as the glasses show it: plain text, a short source line when documents answered.
    public var message: String
    /// Whether the question started a new subject (the app then drops its history).
    public var topicChanged: Bool
    /// The conversation it was kept in.
    public var conversationID: UUID
    /// A picture drawn for the question, when it asked for one.
    public var image: GeneratedImage?
    /// The answer spoken (MP3), when `glasses.spoken_answers` is on.
    public var speech: AudioFile?
    /// Whether the photo was given to a vision model.
    public var photoLookedAt: Bool
    /// What the topic decision rested on.
    public var topic: TopicShift.Decision
    public var timings: NoaTimings
}

/// Where the time of one Noa question went.
public struct NoaTimings: Sendable, Hashable, Codable {
    /// Reading the WAV and keeping the speech.
    public var decode: Duration = .zero
    public var transcribe: Duration = .zero
    /// Deciding whether the subject changed.
    public var topic: Duration = .zero
    /// The language model (or the image model), from the question to the whole answer.
    public var answer: Duration = .zero
    /// Speaking the answer, when asked.
    public var speech: Duration = .zero
    public var total: Duration = .zero

    public init() {}

    /// Milliseconds by stage, as the reply's `debug.timings` and the operations log show them.
    public var milliseconds: [String: Int] {
        ["decode": decode.milliseconds, "transcribe": transcribe.milliseconds, "topic": topic.milliseconds, "answer": answer.milliseconds,
         "speech": speech.milliseconds, "total": total.milliseconds]
    }
}

/// Why a Noa question got no answer, in words the app shows (it shows the reason phrase).
public enum NoaFailure: Error, Equatable, LocalizedError {
    /// No `audio` file, or one that is not a WAV file Sibyl can read.
    case unreadableAudio(String)
    /// The recording holds no speech.
    case noSpeech
    /// The language model (or speech-to-text) failed or could not be reached.
    case unavailable(String)

    public var errorDescription: String? {
        switch self {
        case .unreadableAudio(let detail): "The recording could not be read: \(detail)"
        case .noSpeech: "No speech was heard in the recording."
        case .unavailable(let detail): "Sibyl could not answer: \(detail)"
        }
    }
}

extension SibylRuntime.Glasses {
    /// Answers a question from the Noa app: transcribes it, decides whether it starts a new subject
    /// (then a new conversation), and answers with the glasses' persona and the glasses
    /// settings (documents, translation, spoken answers, the vision model for photos), keeping the
    /// exchange in a conversation with source `noa`.
    public func answer(_ question: NoaQuestion) async throws -> NoaReply {
        let clock = ContinuousClock()
        let started = clock.now
        var timings = NoaTimings()
        let settings = runtime.settings

        let typed = question.typed?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        var heard = typed
        if !question.audio.isEmpty || typed.isEmpty {
            let (speech, decoded) = try await speechOnly(question.audio)
            timings.decode = decoded
            let mark = clock.now
            let language = settings[.glassesLanguage] ?? SibylRuntime.Voice.spokenLanguage(setting: settings[.voiceLanguage], hint: nil)
            let said: String
            do {
                said = try await runtime.voice.transcribe(speech, options: TranscriptionOptions(language: language)).text.trimmingCharacters(in: .whitespacesAndNewlines)
            } catch {
                throw NoaFailure.unavailable("speech-to-text failed (\(error.localizedDescription))")
            }
            timings.transcribe = clock.now - mark
            guard GlassesAssistant.hasWords(said) else { throw NoaFailure.noSpeech }
            heard = typed.isEmpty ? said : typed + " " + said
        }

        // A new subject starts a new conversation; so does a first question.
        var mark = clock.now
        let history = question.history.filter { ["user", "assistant"].contains($0.role) && !$0.content.isEmpty }
        var topic = TopicShift.Decision(changed: false, similarity: nil, refersBack: false)
        if !history.isEmpty {
            do {
                topic = try await TopicShift(embedder: runtime.providers.embedder()).decide(heard, after: history)
            } catch {
                await runtime.log(.warning, .noa, "the subject could not be compared: \(error.localizedDescription)")
            }
        }
        timings.topic = clock.now - mark

        let mode = settings[.glassesTranslateTo].map { ConversationMode.translator(target: $0) } ?? .chat
        let new = NewConversation(persona: settings[.glassesPersona], mode: mode, source: .noa)
        let conversation = try await conversation(for: history, changed: topic.changed, new: new)

        mark = clock.now
        var reply = NoaReply(
            transcript: heard, message: "", topicChanged: topic.changed, conversationID: conversation, image: nil, speech: nil,
            photoLookedAt: false, topic: topic, timings: timings
        )
        if question.drawPicture || (Self.asksForPicture(heard) && (try? runtime.providers.imageGenerator()) != nil) {
            let drawn = try await runtime.conversations.imagine(heard, conversation: .id(conversation))
            reply.image = drawn.images.first
            reply.message = drawn.images.first?.revisedPrompt.map { "Here is a picture: \($0)" } ?? "Here is the picture you asked for."
        } else {
            let visionModel = settings[.glassesVisionModel]
            reply.photoLookedAt = question.photo != nil && visionModel != nil
            reply.message = try await answerInWords(heard, question: question, conversation: conversation, visionModel: visionModel)
        }
        timings.answer = clock.now - mark

        if settings[.glassesSpokenAnswers] {
            mark = clock.now
            do {
                reply.speech = try await runtime.voice.speak(reply.message, options: SpeechOptions(voice: settings[.glassesVoice] ?? settings[.ttsVoice], format: .mp3))
            } catch {
                await runtime.log(.warning, .noa, "the answer could not be spoken: \(error.localizedDescription)")
            }
            timings.speech = clock.now - mark
        }
        timings.total = clock.now - started
        reply.timings = timings
        await runtime.log(.info, .noa, "answered a question from the Noa app", details: NoaLogDetails(reply: reply))
        return reply
    }

    /// The recording kept to where someone speaks: a WAV (the Noa app's is 8 kHz 8-bit unsigned),
    /// or any format ffmpeg reads (other clients'); and how long that took.
    private func speechOnly(_ audio: Data) async throws -> (AudioFile, Duration) {
        let started = ContinuousClock.now
        guard !audio.isEmpty else { throw NoaFailure.unreadableAudio("the request has no audio") }
        let format = AudioFormat(sniffing: audio)
        if format == nil || format == .wav, (try? WAVAudio(parsing: audio)) == nil {
            throw NoaFailure.unreadableAudio("it is not a WAV file")
        }
        do {
            let speech = try await runtime.voice.speechOnly(AudioFile(data: audio, format: format ?? .wav))
            return (speech, ContinuousClock.now - started)
        } catch AssistantError.noSpeech {
            throw NoaFailure.noSpeech
        } catch {
            throw NoaFailure.unreadableAudio(error.localizedDescription)
        }
    }

    /// The conversation to ask in: the latest `noa` one when the app's history is the end of it,
    /// else a new one (with the app's history written into it first, so that the answer has the
    /// context the app has).
    private func conversation(for history: [TopicShift.Turn], changed: Bool, new: NewConversation) async throws -> UUID {
        let conversations = runtime.conversations
        if history.isEmpty || changed { return try await conversations.start(new).id }
        if let latest = try await conversations.list(limit: 1, source: .noa).items.first,
           try await conversations.conversation(id: latest.id).mode == new.mode {
            let messages = try await conversations.messages(in: latest.id)
            let lastAnswer = messages.last(where: { $0.role == .assistant })?.text
            if let lastAnswer, let appLast = history.last(where: { $0.role == "assistant" })?.content,
               Self.sameText(GlassesText.plain(Grounding.withoutReferenceMarkers(lastAnswer)), appLast) || Self.sameText(lastAnswer, appLast) {
                return latest.id
            }
        }
        let started = try await conversations.start(new)
        var pending: String?
        for turn in history {
            if turn.role == "user" {
                pending = turn.content
            } else if let asked = pending {
                _ = try await runtime.engine.record(question: asked, answer: turn.content, in: started.id)
                pending = nil
            }
        }
        return started.id
    }

    /// Whether the answer Sibyl stored (`stored`) is the one the app shows (`shown`): the app's has
    /// what the reply added around it (the note on an unseen photo before, the source line after),
    /// its whitespace may differ, and it writes "—" as "-".
    static func sameText(_ stored: String, _ shown: String) -> Bool {
        func squeezed(_ text: String) -> String { text.split(whereSeparator: \.isWhitespace).joined(separator: " ").replacingOccurrences(of: "—", with: "-") }
        let (x, y) = (squeezed(stored), squeezed(shown))
        return !x.isEmpty && y.contains(x)
    }

    /// Asks the chat model and returns the answer as the glasses show it.
    private func answerInWords(_ heard: String, question: NoaQuestion, conversation: UUID, visionModel: String?) async throws -> String {
        let settings = runtime.settings
        let unseen = question.photo != nil && visionModel == nil
        var attachments: [Attachment] = []
        if let photo = question.photo {
            // Kept with the question either way; given to the model only when one can see it.
            let type = ImageSniffer.mimeType(of: photo) ?? "image/jpeg"
            attachments.append(Attachment(kind: unseen ? .file : .image, mimeType: type, filename: type == "image/png" ? "noa-photo.png" : "noa-photo.jpg", data: photo))
        }
        let options = try TurnOptions(model: unseen || question.photo == nil ? nil : visionModel)
            .with(TurnOptions.Situation(place: question.place, time: question.time, unseenPhoto: unseen))
        let request = AskRequest(
            heard, attachments: attachments, conversation: .id(conversation),
            documents: settings[.glassesDocuments] ? DocumentScope() : nil, options: options
        )
        let result: AskResult
        do {
            result = try await runtime.conversations.ask(request)
        } catch let error as AssistantError {
            throw error
        } catch {
            throw NoaFailure.unavailable(error.localizedDescription)
        }
        let message: Message
        switch result.outcome {
        case .declined(let declined):
            message = declined.reply
        case .answering(let turn):
            await turn.waitUntilEnded()
            switch turn.outcome {
            case .finished(let finished): message = finished
            case .failed(_, let failure): throw NoaFailure.unavailable("the language model failed (\(failure.text))")
            default: throw NoaFailure.unavailable("the answer was stopped")
            }
        }
        var text = GlassesText.plain(Grounding.withoutReferenceMarkers(message.text))
        if let source = Self.sourceLine(message) { text += "\n" + source }
        if unseen { text = "I couldn't look at your photo: no vision model is set up in Sibyl. " + text }
        return text
    }

    /// "Source: handbook.pdf, p. 3": the first document the answer cites.
    static func sourceLine(_ message: Message) -> String? {
        guard let citation = Grounding.cited(in: message.text, from: message.citations).first else { return nil }
        return "Source: \(citation.documentTitle)" + (citation.page.map { ", p. \($0)" } ?? "")
    }

    /// Whether the words ask for a picture to be made ("draw a cat", "make an image of …").
    static func asksForPicture(_ text: String) -> Bool {
        let lowered = text.lowercased()
        if lowered.hasPrefix("draw ") || lowered.contains(" draw me ") || lowered.hasPrefix("sketch ") || lowered.hasPrefix("paint ") { return true }
        let verbs = ["make", "create", "generate", "draw", "paint", "show me"]
        let nouns = ["image", "picture", "drawing", "painting", "illustration", "sketch"]
        return verbs.contains { verb in nouns.contains { lowered.contains("\(verb) a \($0)") || lowered.contains("\(verb) an \($0)") || lowered.contains("\(verb) me a \($0)") } }
    }
}

/// What the operations log keeps of a Noa question.
private struct NoaLogDetails: Encodable {
    var conversation: String
    var topicChanged: Bool
    var similarity: Double?
    var photo: String
    var spoken: Bool
    var drew: Bool
    var timingsMs: [String: Int]

    init(reply: NoaReply) {
        conversation = reply.conversationID.uuidString.lowercased()
        topicChanged = reply.topicChanged
        similarity = reply.topic.similarity.map { ($0 * 1000).rounded() / 1000 }
        photo = reply.photoLookedAt ? "looked at" : "none or not looked at"
        spoken = reply.speech != nil
        drew = reply.image != nil
        timingsMs = reply.timings.milliseconds
    }
}
