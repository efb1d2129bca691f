import Foundation

/// Captions what is said around the listener, line by line, for as long as audio comes: one
/// ``SpokenQuestionListener`` after another hears a stretch of speech to its end (a finished
/// sentence, a pause the patience outlasts, or the longest line), showing its words as they form;
/// the samples that came after that end go on to the next listener, so nothing said is lost
/// between lines.
///
/// Feed 16 kHz samples with `add(_:)`; follow `events`. `pause()` ends the line under way and
/// drops audio until `resume()`; `finish()` ends the line under way and the events.
public actor LiveCaptioner {
    /// What the captioner reports, in order.
    public enum Event: Sendable, Equatable {
        /// The words of the line under way so far (replacing the previous ones).
        case partial(String)
        /// A finished line.
        case line(String)
        /// Transcribing failed; captioning goes on with the next line.
        case trouble(String)
    }

    /// Makes the listener for each line (each has its own voice detector).
    public typealias ListenerMaker = @Sendable () throws -> SpokenQuestionListener

    public nonisolated let events: AsyncStream<Event>
    private let sink: AsyncStream<Event>.Continuation
    private let makeListener: ListenerMaker
    private let sampleRate: Int
    /// The line under way: its listener, the tasks that follow it, and how many samples it was given
    /// (the quiet first not counted).
    private var current: (number: Int, listener: SpokenQuestionListener, tasks: [Task<Void, Never>], given: Int)?
    private var count = 0
    /// The latest samples, for the next listener: what came after the previous line's end.
    private var recent: [Int16] = []
    private var paused = false
    private var finished = false
    private var lastPartial = ""

    /// How much recent audio is kept to hand on to the next line.
    private var keptSamples: Int { sampleRate * 8 }

    public init(sampleRate: Int = AudioResampling.speechSampleRate, makeListener: @escaping ListenerMaker) {
        self.sampleRate = sampleRate
        self.makeListener = makeListener
        (events, sink) = AsyncStream<Event>.makeStream()
    }

    /// Whether audio is being dropped (paused by the wearer).
    public var isPaused: Bool { paused }

    /// Adds samples as they are recorded.
    public func add(_ samples: [Int16]) async {
        guard !paused, !finished, !samples.isEmpty else { return }
        recent += samples
        if recent.count > keptSamples * 2 { recent.removeFirst(recent.count - keptSamples) }
        if current == nil { await startLine(carrying: []) }
        guard let line = current else { return }
        current?.given += samples.count
        await line.listener.add(samples)
    }

    /// Ends the line under way (its words so far become a line) and drops audio until `resume()`.
    public func pause() async {
        guard !paused, !finished else { return }
        paused = true
        await endLine()
        recent = []
    }

    /// Takes audio again after `pause()`.
    public func resume() {
        paused = false
    }

    /// Ends the line under way and the events.
    public func finish() async {
        guard !finished else { return }
        await endLine()
        finished = true
        sink.finish()
    }

    // MARK: Lines

    private func startLine(carrying carried: [Int16]) async {
        let listener: SpokenQuestionListener
        do {
            listener = try makeListener()
        } catch {
            sink.yield(.trouble(error.localizedDescription))
            return
        }
        count += 1
        let number = count
        // A moment of quiet first, so the detector learns the room before any speech that the
        // previous line handed on.
        await listener.add([Int16](repeating: 0, count: Self.quietFirst(sampleRate)))
        let tasks = [
            Task {
                let outcome: Result<SpokenQuestionListener.Outcome, any Error>
                do { outcome = .success(try await listener.result()) } catch { outcome = .failure(error) }
                await self.lineEnded(outcome, number: number)
            },
            Task {
                for await words in await listener.partials() { self.partial(words, number: number) }
            },
        ]
        current = (number, listener, tasks, carried.count)
        if !carried.isEmpty { await listener.add(carried) }
    }

    private func partial(_ words: String, number: Int) {
        guard current?.number == number, words != lastPartial else { return }
        lastPartial = words
        sink.yield(.partial(words))
    }

    /// A listener decided: its words are a line, and what came after their end goes to the next.
    private func lineEnded(_ outcome: Result<SpokenQuestionListener.Outcome, any Error>, number: Int) async {
        guard let line = current, line.number == number else { return }
        let lag = await line.listener.transcriptLag ?? .zero
        let taken = await line.listener.recordedSamples - Self.quietFirst(sampleRate)
        guard let ended = current, ended.number == number else { return }
        current = nil
        line.tasks[1].cancel()
        report(outcome)
        guard !paused, !finished else { return }
        // The recording after the line's last word starts the next line: what the listener had
        // after it (the detector's end is the last loud frame: anything said later is in there)
        // and what it was given once it had decided. Not a sample more: the line's own last word
        // would be heard again, and again.
        let untaken = max(0, ended.given - taken)
        let after = min(recent.count, sampleRate * lag.milliseconds / 1000 + untaken)
        await startLine(carrying: Array(recent.suffix(after)))
    }

    private func report(_ outcome: Result<SpokenQuestionListener.Outcome, any Error>) {
        lastPartial = ""
        switch outcome {
        case .success(.heard(let transcription, _)):
            let text = Self.cleaned(transcription.text)
            if !text.isEmpty { sink.yield(.line(text)) } else { sink.yield(.partial("")) }
        case .success(.noSpeech):
            break
        case .failure(let error):
            sink.yield(.trouble(error.localizedDescription))
        }
    }

    /// Stops the line under way and waits for its words.
    private func endLine() async {
        guard let line = current else { return }
        await line.listener.stop()
        let outcome: Result<SpokenQuestionListener.Outcome, any Error>
        do { outcome = .success(try await line.listener.result()) } catch { outcome = .failure(error) }
        guard current?.number == line.number else { return }
        current = nil
        for task in line.tasks { task.cancel() }
        report(outcome)
    }

    private static func quietFirst(_ sampleRate: Int) -> Int { sampleRate / 4 }

    /// A transcript as a caption: one line of words; Whisper's bracketed sound tags
    /// ("[BLANK_AUDIO]", "(music)") are not words.
    public static func cleaned(_ text: String) -> String {
        let words = text.replacing(/\[[^\]]*\]|\([^)]*\)/, with: " ").split(whereSeparator: \.isWhitespace)
        let line = words.joined(separator: " ")
        return line.contains(where: { $0.isLetter || $0.isNumber }) ? line : ""
    }
}
