import Foundation

/// Listens to one spoken question as it is recorded and decides when it is over, by sound and by
/// sense: after the detector's hang-over without speech, what was said is transcribed at once; a
/// transcript that ends a sentence (". ? !") is the question, so a short hang-over costs nothing;
/// one that does not (the speaker paused mid-sentence: "And so, my fellow Americans,") is given
/// until `patience` without speech for the rest. The transcript made at the end is the answer's
/// question.
///
/// With `partialInterval`, the speech so far is also transcribed every so often while the person
/// speaks: `partial` shows the words as they form, and a `DraftingTranscriber` reads the final
/// recording sooner with the latest partial as its draft (the same words, fewer decoding steps).
public actor SpokenQuestionListener {
    /// How the question ended.
    public enum Outcome: Sendable {
        /// The question, its transcript, and the speech (with a quarter second around it).
        case heard(Transcription, speech: WAVAudio)
        /// Nobody spoke in time.
        case noSpeech
    }

    public let sampleRate: Int
    /// Longest wait without speech after words that do not end a sentence.
    public let patience: Duration
    private var detector: VoiceActivityDetector
    private let transcriber: any Transcriber
    private let options: TranscriptionOptions
    private var samples: [Int16] = []
    private var start: Int?
    /// The end of speech being checked, its transcription, and whether that transcript ends a sentence.
    /// `early`: checked before the hang-over ran out (see `senseHangover`).
    /// `last`: the speech ran past the longest allowed, so this transcript is the question whatever follows.
    private var tentative: (end: Int, task: Task<Transcription, any Error>, early: Bool, last: Bool)?
    /// The speech end last checked early, so that one quiet stretch is checked once.
    private var checkedEarly: Int?
    /// A quiet transcribed early whose words did not end a sentence (used when the hang-over ends).
    private var heardEarly: (end: Int, transcription: Transcription)?
    private var heard: (end: Int, transcription: Transcription)?
    private var outcome: Result<Outcome, any Error>?
    /// Stopped from outside: the next transcript is the question.
    private var stopping = false
    /// How often a partial transcript is taken while the person speaks; nil: never.
    public let partialInterval: Duration?
    /// The latest transcript of the speech so far (a partial one, or one made at a pause that was
    /// not the end): the words as they form, and the draft of the next transcription.
    public private(set) var partial: Transcription? {
        didSet { publishPartial() }
    }
    /// Who follows the partial words (`partials()`), and the words they were last given.
    private var partialFollowers: [Int: AsyncStream<String>.Continuation] = [:]
    private var followerCount = 0
    private var publishedPartial = ""
    private var partialTask: Task<Void, Never>?
    /// Which partial transcript is the current one (a cancelled one may still report back).
    private var partialNumber = 0
    /// Where the last partial transcript began (samples recorded by then).
    private var partialFrom = 0
    private var waiters: [CheckedContinuation<Outcome, any Error>] = []

    /// How long a quiet is before, with partial transcripts on, it is transcribed to see whether the
    /// words so far end a sentence (the detector's own hang-over is longer).
    public static let senseHangover = Duration.milliseconds(300)

    /// How often a partial transcript is taken while the person speaks, when partials are wanted.
    public static let defaultPartialInterval = Duration.milliseconds(700)

    /// How long words that stop mid-sentence wait for the rest, by default.
    public static let defaultPatience = Duration.milliseconds(1200)

    public init(detector: VoiceActivityDetector, transcriber: any Transcriber, options: TranscriptionOptions, patience: Duration = defaultPatience, partialInterval: Duration? = nil) {
        self.detector = detector
        sampleRate = detector.sampleRate
        self.transcriber = transcriber
        self.options = options
        self.patience = max(patience, detector.configuration.hangover)
        self.partialInterval = partialInterval
    }

    /// The detector's reading of the last frame (for a level meter).
    public var level: (level: Double, threshold: Double, speaking: Bool) { (detector.level, detector.threshold, detector.isSpeaking) }

    /// Whether the question is over.
    public var isDone: Bool { outcome != nil }

    public var heardSpeech: Bool { start != nil }

    /// Whether the question ended because it ran past the longest allowed (perhaps mid-word).
    public private(set) var endedAtLongest = false

    /// How many samples it has taken (none after the outcome is known).
    public var recordedSamples: Int { samples.count }

    /// How much recording came after the question's last word by the time its transcript was final
    /// (the hang-over, the wait for more words and the transcription, as the speaker lived them).
    public private(set) var transcriptLag: Duration?

    /// Adds recorded samples.
    public func add(_ chunk: [Int16]) {
        guard outcome == nil else { return }
        samples += chunk
        for event in detector.process(chunk) {
            switch event {
            case .speechStarted(let sample):
                if start == nil { start = sample }
                // Speech past the longest allowed ended the question, whoever goes on speaking.
                if tentative?.last == true { break }
                // The speaker only paused: what was transcribed is not the whole question.
                tentative?.task.cancel()
                tentative = nil
                heard = nil
            case .speechEnded(let end):
                if let early = heardEarly, early.end == end {
                    // Transcribed since it went quiet, and not a finished sentence: wait for more.
                    heardEarly = nil
                    detector.resume()
                    decide(.success(early.transcription), end: end, last: false)
                } else if let early = tentative, early.early, early.end == end {
                    // Being transcribed since it went quiet: that transcript decides.
                    tentative?.early = false
                    detector.resume()
                } else {
                    check(end: end)
                }
            case .tooLong(let end):
                check(end: end, last: true)
            case .noSpeech:
                if start == nil { finish(.success(.noSpeech)) }
            }
        }
        // The longest question counts from its first word, across the pauses the detector heard
        // (its own count starts again with each): past it, what was said is the question.
        if let start, outcome == nil, tentative?.last != true, samples.count - start >= longestSamples {
            check(end: samples.count, last: true)
        }
        // Out of patience: the words so far are the question, whole sentence or not.
        if let heard, samples.count - heard.end >= patienceSamples { question(heard.transcription, end: heard.end) }
        checkEarlyIfDue()
        takePartialIfDue()
    }

    /// With partial transcripts on, a quiet of `senseHangover` is transcribed at once, before the
    /// detector's hang-over has run out: words that end a sentence are the question then, sooner.
    private func checkEarlyIfDue() {
        guard partialInterval != nil, outcome == nil, detector.isSpeaking, tentative == nil, start != nil,
              detector.quietFor >= Self.senseHangover, checkedEarly != detector.lastSpeechEnd else { return }
        checkedEarly = detector.lastSpeechEnd
        check(end: detector.lastSpeechEnd, early: true)
    }

    /// Starts a partial transcript when the person is speaking, none is under way, and the
    /// interval has passed since the last one began.
    private func takePartialIfDue() {
        guard let partialInterval, outcome == nil, detector.isSpeaking, let start, tentative == nil, partialTask == nil else { return }
        let interval = sampleRate * partialInterval.milliseconds / 1000
        guard samples.count - partialFrom >= interval, samples.count - start >= sampleRate / 2 else { return }
        partialFrom = samples.count
        let audio = speech(to: samples.count)
        let transcriber = self.transcriber, options = self.options, draft = partial
        partialNumber += 1
        let number = partialNumber
        partialTask = Task {
            let heard = try? await Self.transcribe(audio, with: transcriber, options: options, draft: draft)
            self.took(partial: heard, number: number)
        }
    }

    private func took(partial heard: Transcription?, number: Int) {
        guard number == partialNumber else { return }
        partialTask = nil
        guard outcome == nil, tentative == nil, let heard else { return }
        partial = heard
    }

    /// Transcribes, with a draft when the transcriber takes one.
    private static func transcribe(_ audio: WAVAudio, with transcriber: any Transcriber, options: TranscriptionOptions, draft: Transcription?) async throws -> Transcription {
        let file = AudioFile(data: audio.encoded(), format: .wav)
        if let drafting = transcriber as? any DraftingTranscriber, let draft {
            return try await drafting.transcribe(file, options: options, draft: draft)
        }
        return try await transcriber.transcribe(file, options: options)
    }

    /// Ends the question now (the microphone stopped, or Ctrl-C): what was said so far is the question.
    public func stop() {
        guard outcome == nil else { return }
        guard start != nil else { return finish(.success(.noSpeech)) }
        stopping = true
        if let heard { return question(heard.transcription, end: heard.end) }
        // A transcription under way finishes the question when it is done.
        if tentative == nil { check(end: samples.count) }
    }

    /// Guards against a microphone that delivers nothing (a muted source, an idle page): after the
    /// wait for speech with none begun, and after the longest question, the question ends. Cancel
    /// the task once the outcome is known.
    public nonisolated func watchdog(_ configuration: VoiceActivityDetector.Configuration) -> Task<Void, any Error> {
        Task {
            try await Task.sleep(for: configuration.waitForSpeech + .seconds(1))
            if await !heardSpeech { await stop() }
            try await Task.sleep(for: configuration.maximumSpeech)
            await stop()
        }
    }

    /// The words heard so far each time they change (trimmed, never empty; a slow reader gets the
    /// newest), until the question is over.
    public func partials() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(1))
        guard outcome == nil else {
            continuation.finish()
            return stream
        }
        if !publishedPartial.isEmpty { continuation.yield(publishedPartial) }
        followerCount += 1
        let number = followerCount
        partialFollowers[number] = continuation
        continuation.onTermination = { _ in Task { await self.unfollow(number) } }
        return stream
    }

    private func unfollow(_ number: Int) {
        partialFollowers[number] = nil
    }

    private func publishPartial() {
        let text = partial?.text.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard !text.isEmpty, text != publishedPartial else { return }
        publishedPartial = text
        for follower in partialFollowers.values { follower.yield(text) }
    }

    /// Waits for the outcome.
    public func result() async throws -> Outcome {
        if let outcome { return try outcome.get() }
        return try await withCheckedThrowingContinuation { waiters.append($0) }
    }

    private func check(end: Int, last: Bool = false, early: Bool = false) {
        // The longest question is being transcribed: it is the question, nothing later replaces it.
        guard tentative?.last != true else { return }
        let audio = speech(to: end)
        let transcriber = self.transcriber, options = self.options, draft = partial
        // A partial transcript or an earlier check under way would hold up this one.
        tentative?.task.cancel()
        partialTask?.cancel()
        partialTask = nil
        partialNumber += 1
        let task = Task { try await Self.transcribe(audio, with: transcriber, options: options, draft: draft) }
        tentative = (end, task, early, last)
        detector.resume()
        Task { await self.transcribed(end: end, task: task, last: last) }
    }

    private func transcribed(end: Int, task: Task<Transcription, any Error>, last: Bool) async {
        let result = await task.result
        // Speech came back while it was transcribed: this was not the end.
        guard let checked = tentative, checked.end == end, outcome == nil else { return }
        tentative = nil
        if checked.early {
            let spokeSince = !detector.isSpeaking || detector.lastSpeechEnd != end
            if stopping, spokeSince {
                // Stopped, with words after this quiet: the question is all of it.
                return check(end: samples.count)
            }
            guard !stopping else { return decide(result, end: end, last: last) }
            guard !spokeSince, case .success(let transcription) = result else { return }
            // Still quiet: a finished sentence is the question; anything else waits for the
            // hang-over, as it would have, and is not transcribed again then.
            partial = transcription
            if Self.endsSentence(transcription.text) { return question(transcription, end: end) }
            heardEarly = (end, transcription)
            return
        }
        decide(result, end: end, last: last)
    }

    /// What a transcript at an end of speech means: the question, or words that wait for more.
    private func decide(_ result: Result<Transcription, any Error>, end: Int, last: Bool) {
        switch result {
        case .failure(let error):
            finish(.failure(error))
        case .success(let transcription):
            if last || stopping || Self.endsSentence(transcription.text) || transcription.text.allSatisfy({ !$0.isLetter && !$0.isNumber }) {
                if last { endedAtLongest = true }
                question(transcription, end: end)
            } else {
                heard = (end, transcription)
                partial = transcription
                // The silence may have outlasted the patience while this was transcribed.
                if samples.count - end >= patienceSamples { question(transcription, end: end) }
            }
        }
    }

    private var patienceSamples: Int { sampleRate * patience.milliseconds / 1000 }
    private var longestSamples: Int { sampleRate * detector.configuration.maximumSpeech.milliseconds / 1000 }

    /// Whether text ends a sentence: its last mark, past closing quotes and brackets, is . ? ! or
    /// a full stop of another script.
    public static func endsSentence(_ text: String) -> Bool {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines).trimmingCharacters(in: CharacterSet(charactersIn: "\"'\u{201D}\u{2019})]"))
        guard let last = trimmed.last else { return false }
        return ".?!\u{3002}\u{FF1F}\u{FF01}".contains(last) && !trimmed.hasSuffix("...")
    }

    /// The question is what was heard up to `end`.
    private func question(_ transcription: Transcription, end: Int) {
        guard outcome == nil else { return }
        transcriptLag = .milliseconds(max(0, samples.count - end) * 1000 / sampleRate)
        finish(.success(.heard(transcription, speech: speech(to: end))))
    }

    private func speech(to end: Int) -> WAVAudio {
        let margin = sampleRate / 4
        let from = max(0, (start ?? 0) - margin)
        let to = max(from, min(samples.count, end + margin))
        return AudioResampling.wav(pcm16: Array(samples[from..<to]), sampleRate: sampleRate)
    }

    private func finish(_ result: Result<Outcome, any Error>) {
        guard outcome == nil else { return }
        outcome = result
        tentative?.task.cancel()
        partialTask?.cancel()
        for waiter in waiters { waiter.resume(with: result) }
        waiters = []
        for follower in partialFollowers.values { follower.finish() }
        partialFollowers = [:]
    }
}
