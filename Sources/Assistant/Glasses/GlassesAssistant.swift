public import Foundation
public import Glasses
public import SibylCore

/// What happens between the wearer and Sibyl, for the CLI and the logs.
public enum GlassesEvent: Sendable {
    /// The glasses' connection changed state.
    case state(GlassesState)
    /// A notice from the connection (a retry, a version mismatch, a failed firmware update).
    case notice(String)
    /// The wearer asked something; `transcript` is what was heard.
    case heard(String)
    /// An answer was shown.
    case answered(question: String, answer: String, timings: GlassesTimings)
    /// Something went wrong; `shown` is what the wearer read.
    case failed(shown: String, detail: String)
    /// The wearer cancelled.
    case cancelled
}

/// Answers questions asked through glasses (Monocle or Frame): speech → text → the conversation engine → the display.
///
/// Every exchange is kept in one conversation started with source `glasses`, so it shows up in
/// `sibyl conversations` like any other.
public actor GlassesAssistant {
    /// How answers are made.
    public struct Options: Sendable {
        /// The persona; `concise` keeps answers to one short sentence.
        public var persona = "concise"
        /// `.chat`, or `.translator(target:)` to translate whatever the wearer says.
        public var mode = ConversationMode.chat
        /// The spoken language, when known (helps speech-to-text).
        public var language: String?
        /// Answer from the wearer's documents, with the same rules as everywhere else.
        public var documents: DocumentScope?
        /// The vision-capable chat model photo questions go to; without one, photos are declined.
        public var visionModel: String?

        public init() {}
    }

    private let connection: GlassesConnection
    private let asker: any Asking
    private let transcriber: any Transcriber
    private let options: Options
    private var conversationID: UUID?
    private var current: Task<Void, Never>?
    private var transferStarted: ContinuousClock.Instant?
    private var observer: @Sendable (GlassesEvent) -> Void = { _ in }

    /// Answers what the wearer of `connection`'s glasses asks, through `asker` (a `SibylRuntime`).
    public init(connection: GlassesConnection, asker: any Asking, transcriber: any Transcriber, options: Options = Options()) {
        self.connection = connection
        self.asker = asker
        self.transcriber = transcriber
        self.options = options
    }

    /// The conversation the exchanges are saved in, once the first question was asked.
    public var conversation: UUID? { conversationID }

    /// Serves the glasses until the connection's events end.
    public func run(observer: @escaping @Sendable (GlassesEvent) -> Void = { _ in }) async {
        self.observer = observer
        for await event in connection.events {
            switch event {
            case .state(let state):
                observer(.state(state))
                if state.isDisconnected { transferStarted = nil }
            case .notice(let text):
                observer(.notice(text))
            case .updateFailed(let reason):
                observer(.notice("the firmware update failed: \(reason)"))
            case .transferStarted:
                transferStarted = .now
            case .request(let request):
                receive(request)
            }
        }
        current?.cancel()
    }

    private func receive(_ request: GlassesRequest) {
        let now = ContinuousClock.now
        let transfer = transferStarted.map { now - $0 } ?? .zero
        transferStarted = nil
        switch request {
        case .cancel:
            let cancelled = current
            cancelled?.cancel()
            current = nil
            // Told once the cancelled answer is over: nothing of it reaches the glasses afterwards.
            Task { [observer] in
                await cancelled?.value
                observer(.cancelled)
            }
        case .spoken(let audio):
            start { await self.answer(audio: audio, photo: nil, transfer: transfer, receivedAt: now) }
        case .photo(let jpeg, let audio):
            start { await self.answer(audio: audio, photo: jpeg, transfer: transfer, receivedAt: now) }
        }
    }

    private func start(_ work: @escaping @Sendable () async -> Void) {
        // A new question replaces one still being answered.
        current?.cancel()
        current = Task { await work() }
    }

    private func answer(audio: Data, photo: Data?, transfer: Duration, receivedAt: ContinuousClock.Instant) async {
        var timings = GlassesTimings()
        timings.audioTransfer = transfer
        let clock = ContinuousClock()
        do {
            if photo != nil && options.visionModel == nil {
                throw GlassesFailure(shown: "Photos need a vision model: set glasses.vision_model in Sibyl.", detail: "no vision-capable chat model is configured (setting glasses.vision_model)")
            }
            guard audio.count >= 800 else { // under 0.1 s of sound
                throw GlassesFailure(shown: "I didn't hear anything. Tap and speak again.", detail: "the recording was \(audio.count) bytes")
            }
            var started = clock.now
            // Half a second of silence first: wearers often speak the moment they tap, and
            // Whisper tends to drop a first word that starts with the recording.
            let wav = AudioResampling.speechWAV(fromSigned8: Data(count: 4_000) + audio, sampleRate: 8_000)
            let file = AudioFile(data: wav.encoded(), format: .wav)
            timings.audioConversion = clock.now - started
            started = clock.now
            let heard: String
            do {
                heard = try await transcriber.transcribe(file, options: TranscriptionOptions(language: options.language)).text
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                throw GlassesFailure(shown: "I couldn't turn your speech into text. Please try again.", detail: "speech-to-text: \(error.localizedDescription)")
            }
            timings.speechToText = clock.now - started
            try Task.checkCancellation()
            guard Self.hasWords(heard) else {
                throw GlassesFailure(shown: "I didn't catch that. Tap and speak again.", detail: "speech-to-text heard nothing (\(heard.debugDescription))")
            }
            observer(.heard(heard))
            await connection.showThinking()

            started = clock.now
            let text = try await ask(heard, photo: photo)
            timings.languageModel = clock.now - started
            let shown = GlassesText.plain(text)
            started = clock.now
            try await connection.show(shown.isEmpty ? "(no answer)" : shown, isError: false)
            timings.display = clock.now - started
            timings.total = clock.now - receivedAt
            observer(.answered(question: heard, answer: shown, timings: timings))
        } catch is CancellationError {
            return
        } catch let failure as GlassesFailure {
            try? await connection.show(failure.shown, isError: true)
            observer(.failed(shown: failure.shown, detail: failure.detail))
        } catch {
            let shown = "Sorry, I can't answer right now."
            try? await connection.show(shown, isError: true)
            observer(.failed(shown: shown, detail: error.localizedDescription))
        }
    }

    /// Asks, in the glasses' conversation, and returns the whole answer.
    private func ask(_ question: String, photo: Data?) async throws -> String {
        let attachments = photo.map { [Attachment(kind: .image, mimeType: "image/jpeg", filename: "glasses.jpg", data: $0)] } ?? []
        let conversation: ConversationChoice = conversationID.map { .id($0) }
            ?? .new(NewConversation(persona: options.persona, mode: options.mode, source: .glasses))
        let request = AskRequest(
            question, attachments: attachments, conversation: conversation, documents: options.documents,
            options: try TurnOptions(model: photo == nil ? nil : options.visionModel)
        )
        let result = try await asker.ask(request)
        conversationID = result.conversation.id
        switch result.outcome {
        case .declined(let declined):
            return declined.reply.text
        case .answering(let turn):
            return try await withTaskCancellationHandler {
                var answer = ""
                for await event in turn.events() {
                    switch event {
                    case .delta(let text): answer += text
                    case .finished(let message): return message.text
                    case .failed(_, let error):
                        throw GlassesFailure(shown: "The language model failed. Please try again.", detail: error.text)
                    case .cancelled: throw CancellationError()
                    case .started, .usage, .historyTrimmed, .titled: break
                    }
                }
                return answer
            } onCancel: {
                turn.cancel()
            }
        }
    }

    /// Whisper marks silence with bracketed tags such as "[BLANK_AUDIO]"; those are not words.
    package static func hasWords(_ text: String) -> Bool {
        let stripped = text.replacing(/\[[^\]]*\]|\([^)]*\)/, with: "")
        return stripped.contains { $0.isLetter || $0.isNumber }
    }
}

/// A failure with words for the wearer and details for the log.
struct GlassesFailure: Error {
    var shown: String
    var detail: String
}
