public import Foundation
public import Glasses
public import SibylCore

/// What happens between the wearer and Sibyl, for the CLI and the logs.
public enum GlassesEvent: Sendable {
    /// The glasses' connection changed state.
    case state(GlassesState)
    /// A notice from the connection (a retry, a version mismatch).
    case notice(String)
    /// A firmware update failed, in words; the glasses may wait in their bootloader until updated or restarted.
    case updateFailed(String)
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
        /// The glasses' own words (what Sibyl shows when it heard nothing) in the wearer's language.
        public var prompts = GlassesPrompts.english

        public init() {}
    }

    private let connection: GlassesConnection
    private let asker: any Asking
    private let transcriber: any Transcriber
    private let listening: (@Sendable () throws -> SpokenQuestionListener)?
    private let options: Options
    private var conversationID: UUID?
    private var current: Task<Void, Never>?
    private var transferStarted: ContinuousClock.Instant?
    private var observer: @Sendable (GlassesEvent) -> Void = { _ in }
    /// The question being heard as it is spoken, when the glasses stream their recording.
    private var live: LiveQuestion?
    private var liveCount = 0

    /// Answers what the wearer of `connection`'s glasses asks, through `asker` (a `SibylRuntime`).
    ///
    /// With `listening` (a new listener for each question), the recording is heard as it arrives:
    /// the words heard so far are shown while the wearer speaks, and the question ends when the
    /// listener hears its end, without waiting for a tap or the recording's limit. Without it, or
    /// when a listener fails, the whole recording is transcribed once it has arrived.
    public init(
        connection: GlassesConnection, asker: any Asking, transcriber: any Transcriber,
        listening: (@Sendable () throws -> SpokenQuestionListener)? = nil, options: Options = Options()
    ) {
        self.connection = connection
        self.asker = asker
        self.transcriber = transcriber
        self.listening = listening
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
                if state.isDisconnected {
                    transferStarted = nil
                    endLive()
                }
            case .notice(let text):
                observer(.notice(text))
            case .updateFailed(let reason):
                observer(.updateFailed(reason))
            case .transferStarted:
                transferStarted = .now
            case .recording(let forPhoto):
                await startLive(forPhoto: forPhoto)
            case .audio(let bytes):
                if live?.firstAudio == nil { live?.firstAudio = .now }
                guard let samples = live?.resampler.add(AudioResampling.floats(fromSigned8: bytes)), !samples.isEmpty else { break }
                live?.fed += samples.count
                await live?.listener.add(AudioResampling.pcm16(samples))
            case .request(let request):
                await receive(request)
            case .captionsPaused:
                break // live captions run in GlassesCaptions, not here
            }
        }
        endLive()
        current?.cancel()
    }

    // MARK: Hearing the question as it is spoken

    /// A question heard as its recording arrives.
    private struct LiveQuestion {
        let number: Int
        let forPhoto: Bool
        let listener: SpokenQuestionListener
        var resampler = StreamingResampler(from: 8_000, to: AudioResampling.speechSampleRate)
        var tasks: [Task<Void, Never>] = []
        /// What the listener decided, once it has.
        var outcome: Result<SpokenQuestionListener.Outcome, any Error>?
        /// When the question's speech ended (from the listener's lag).
        var speechEnded: ContinuousClock.Instant?
        /// The glasses' request for this recording, once it came.
        var request: GlassesRequest?
        var transfer: Duration = .zero
        /// The answer was started (or the question given up); nothing more of it is acted on.
        var settled = false
        /// When the first samples came, and how many (at the listener's rate) have been fed since.
        var firstAudio: ContinuousClock.Instant?
        var fed = 0

        /// When the speech ended, from how long after it the listener decided: as the recording
        /// arrived in real time; a recording that came faster (a virtual microphone that gives
        /// all at once) ended no sooner than its samples could have been spoken.
        func speechEnd(lag: Duration, now: ContinuousClock.Instant) -> ContinuousClock.Instant {
            guard let firstAudio else { return now - lag }
            let recorded = Duration.milliseconds(fed * 1000 / AudioResampling.speechSampleRate)
            return min(now, max(now - lag, firstAudio + recorded - lag))
        }
    }

    private func startLive(forPhoto: Bool) async {
        endLive()
        guard let listening else { return }
        let listener: SpokenQuestionListener
        do {
            listener = try listening()
        } catch {
            observer(.notice("the recording is transcribed once it has arrived: \(error.localizedDescription)"))
            return
        }
        liveCount += 1
        let number = liveCount
        // Half a second of quiet first: wearers often speak the moment they tap.
        await listener.add([Int16](repeating: 0, count: AudioResampling.speechSampleRate / 2))
        var question = LiveQuestion(number: number, forPhoto: forPhoto, listener: listener)
        question.tasks = [
            Task {
                let outcome: Result<SpokenQuestionListener.Outcome, any Error>
                do { outcome = .success(try await listener.result()) } catch { outcome = .failure(error) }
                await self.heard(outcome, number: number)
            },
            Task { [connection] in
                for await words in await listener.partials() { await connection.showHeard(words) }
            },
        ]
        live = question
    }

    private func endLive() {
        guard let question = live else { return }
        live = nil
        for task in question.tasks { task.cancel() }
        Task { await question.listener.stop() }
    }

    /// The listener decided: the glasses stop recording, and the answer starts (a photo question's
    /// once its request, which carries the photo, has come).
    private func heard(_ outcome: Result<SpokenQuestionListener.Outcome, any Error>, number: Int) async {
        guard let listener = live?.listener, live?.number == number else { return }
        let lag = await listener.transcriptLag ?? .zero
        guard var question = live, question.number == number, question.outcome == nil else { return }
        question.outcome = outcome
        question.speechEnded = question.speechEnd(lag: lag, now: .now)
        live = question
        if question.request == nil { await connection.stopListening() }
        proceed()
    }

    /// Starts the live question's answer when what it needs has come.
    private func proceed() {
        guard var question = live, !question.settled, let outcome = question.outcome else { return }
        if question.forPhoto, question.request == nil { return }
        switch outcome {
        case .success(.heard(let transcription, _)):
            let photo: Data? = if case .photo(let jpeg, _) = question.request { jpeg } else { nil }
            let heard = transcription.text.trimmingCharacters(in: .whitespacesAndNewlines)
            var timings = GlassesTimings()
            timings.audioTransfer = question.transfer
            timings.speechToText = question.speechEnded.map { .now - $0 } ?? .zero
            timings.streamed = true
            let from = question.speechEnded ?? .now
            start { [timings] in await self.answer(heard: heard, photo: photo, timings: timings, from: from) }
        case .success(.noSpeech):
            start { await self.fail(GlassesFailure(shown: "I didn't hear anything. Tap and speak again.", detail: "no speech was heard in the recording")) }
        case .failure(let error):
            // The whole recording is transcribed instead, once it has come.
            guard let request = question.request else { return }
            observer(.notice("hearing the question as it was spoken failed (\(error.localizedDescription)); transcribing the recording"))
            question.settled = true
            live = question
            return answerWhole(request, transfer: question.transfer, receivedAt: .now)
        }
        question.settled = true
        live = question
    }

    // MARK: Requests

    private func receive(_ request: GlassesRequest) async {
        let now = ContinuousClock.now
        let transfer = transferStarted.map { now - $0 } ?? .zero
        transferStarted = nil
        if case .cancel = request {
            endLive()
            let cancelled = current
            cancelled?.cancel()
            current = nil
            // Told once the cancelled answer is over: nothing of it reaches the glasses afterwards.
            Task { [observer] in
                await cancelled?.value
                observer(.cancelled)
            }
            return
        }
        guard var question = live, question.request == nil else { return answerWhole(request, transfer: transfer, receivedAt: now) }
        // The recording is complete: what it held is heard, then answered (unless it is already).
        question.request = request
        question.transfer = transfer
        let rest = question.resampler.finish()
        live = question
        if question.outcome == nil {
            await question.listener.add(AudioResampling.pcm16(rest))
            await question.listener.stop()
        }
        proceed()
    }

    private func answerWhole(_ request: GlassesRequest, transfer: Duration, receivedAt: ContinuousClock.Instant) {
        switch request {
        case .spoken(let audio):
            start { await self.answer(audio: audio, photo: nil, transfer: transfer, receivedAt: receivedAt) }
        case .photo(let jpeg, let audio):
            start { await self.answer(audio: audio, photo: jpeg, transfer: transfer, receivedAt: receivedAt) }
        case .cancel:
            break
        }
    }

    private func start(_ work: @escaping @Sendable () async -> Void) {
        // A new question replaces one still being answered.
        current?.cancel()
        current = Task { await work() }
    }

    // MARK: Answering

    /// Transcribes a whole recording, then answers it.
    private func answer(audio: Data, photo: Data?, transfer: Duration, receivedAt: ContinuousClock.Instant) async {
        var timings = GlassesTimings()
        timings.audioTransfer = transfer
        let clock = ContinuousClock()
        do {
            try checkVision(photo: photo)
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
            await answer(heard: heard, photo: photo, timings: timings, from: receivedAt)
        } catch is CancellationError {
            return
        } catch {
            await fail(error)
        }
    }

    /// Answers what was heard; `from` is where the figures count from (the end of speech, or of the recording).
    private func answer(heard: String, photo: Data?, timings: GlassesTimings, from: ContinuousClock.Instant) async {
        var timings = timings
        let clock = ContinuousClock()
        do {
            try checkVision(photo: photo)
            guard Self.hasWords(heard) else {
                throw GlassesFailure(shown: options.prompts.didNotCatch, detail: "speech-to-text heard nothing (\(heard.debugDescription))")
            }
            observer(.heard(heard))
            await connection.showThinking()

            var started = clock.now
            var firstWords: ContinuousClock.Instant?
            let text = try await ask(heard, photo: photo) { soFar in
                // Whole words as they are written; the last, perhaps unfinished, waits.
                guard let cut = soFar.lastIndex(where: \.isWhitespace) else { return }
                let words = GlassesText.plain(String(soFar[..<cut]))
                guard !words.isEmpty else { return }
                try await self.connection.showAnswer(soFar: words)
                if firstWords == nil { firstWords = clock.now }
            }
            timings.languageModel = clock.now - started
            let shown = GlassesText.plain(text)
            started = clock.now
            try await connection.show(shown.isEmpty ? "(no answer)" : shown, isError: false)
            timings.display = clock.now - started
            timings.firstWords = (firstWords ?? clock.now) - from
            timings.total = clock.now - from
            observer(.answered(question: heard, answer: shown, timings: timings))
        } catch is CancellationError {
            return
        } catch {
            await fail(error)
        }
    }

    /// A photo question needs a vision model.
    private func checkVision(photo: Data?) throws {
        if photo != nil && options.visionModel == nil {
            throw GlassesFailure(shown: "Photos need a vision model: set glasses.vision_model in Sibyl.", detail: "no vision-capable chat model is configured (setting glasses.vision_model)")
        }
    }

    /// Shows what went wrong (in red) and reports it.
    private func fail(_ error: any Error) async {
        if let failure = error as? GlassesFailure {
            try? await connection.show(failure.shown, isError: true)
            observer(.failed(shown: failure.shown, detail: failure.detail))
        } else {
            let shown = "Sorry, I can't answer right now."
            try? await connection.show(shown, isError: true)
            observer(.failed(shown: shown, detail: error.localizedDescription))
        }
    }

    /// Asks, in the glasses' conversation, and returns the whole answer; `written` gets the answer
    /// so far as it grows.
    private func ask(_ question: String, photo: Data?, written: (String) async throws -> Void) async throws -> String {
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
                    case .delta(let text):
                        answer += text
                        try await written(answer)
                    case .finished(let message): return message.text
                    case .failed(_, let error):
                        throw GlassesFailure(shown: "The language model failed. Please try again.", detail: error.text)
                    case .cancelled: throw CancellationError()
                    case .started, .usage, .historyTrimmed, .titled, .toolCalled, .toolAnswered: break
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
