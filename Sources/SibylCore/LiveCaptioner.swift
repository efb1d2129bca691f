import Foundation

/// Captions what is said around the listener, line by line, for as long as audio comes: one
/// ``SpokenQuestionListener`` after another hears a stretch of speech to its end (a finished
/// sentence, a pause the patience outlasts, or the longest line), showing its words as they form;
/// the samples that came after that end go on to the next listener, so nothing said is lost
/// between lines.
///
/// Feed 16 kHz samples with `add(_:)`; follow `events`. `pause()` ends the line under way and
/// drops audio until `resume()`; `finish()` captions what is left and ends the events. Everything
/// happens in the order it was asked for, one thing at a time (a line that ends while samples
/// arrive, a pause that comes while a line is handed on), in one loop.
public final class LiveCaptioner: Sendable {
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

    public let events: AsyncStream<Event>
    private let commands: AsyncStream<Command>.Continuation
    private let loop: Task<Void, Never>
    private let state: CaptionerState

    enum Command: Sendable {
        case samples([Int16])
        case pause
        case resume
        case finish
        case partial(line: Int, words: String)
        case ended(line: Int, Result<SpokenQuestionListener.Outcome, any Error>)
    }

    public init(sampleRate: Int = AudioResampling.speechSampleRate, makeListener: @escaping ListenerMaker) {
        let (events, sink) = AsyncStream<Event>.makeStream()
        let (commands, input) = AsyncStream<Command>.makeStream()
        self.events = events
        self.commands = input
        let state = CaptionerState(sampleRate: sampleRate, makeListener: makeListener, sink: sink, commands: input)
        self.state = state
        loop = Task {
            for await command in commands {
                await state.handle(command)
                if await state.finished { break }
            }
            sink.finish()
        }
    }

    /// A captioner let go without `finish()` ends its loop (the state holds the commands' end too).
    deinit {
        commands.finish()
    }

    /// Adds samples as they are recorded.
    public func add(_ samples: [Int16]) {
        guard !samples.isEmpty else { return }
        commands.yield(.samples(samples))
    }

    /// Ends the line under way (its words so far become a line) and drops audio until `resume()`.
    public func pause() {
        commands.yield(.pause)
    }

    /// Takes audio again after `pause()`.
    public func resume() {
        commands.yield(.resume)
    }

    /// Captions what was said so far and ends the events; returns once they have ended.
    public func finish() async {
        commands.yield(.finish)
        commands.finish()
        await loop.value
    }

    /// A transcript as a caption: one line of words; Whisper's bracketed sound tags
    /// ("[BLANK_AUDIO]", "(music)") are not words.
    public static func cleaned(_ text: String) -> String {
        let words = text.replacing(/\[[^\]]*\]|\([^)]*\)/, with: " ").split(whereSeparator: \.isWhitespace)
        let line = words.joined(separator: " ")
        return line.contains(where: { $0.isLetter || $0.isNumber }) ? line : ""
    }

    /// How much of a line cut at the longest the next line hears again.
    static let overlapAtCut = Duration.milliseconds(400)
}

/// The captioner's state, changed only by its loop, one command at a time.
actor CaptionerState {
    private let sampleRate: Int
    private let makeListener: LiveCaptioner.ListenerMaker
    private let sink: AsyncStream<LiveCaptioner.Event>.Continuation
    private let commands: AsyncStream<LiveCaptioner.Command>.Continuation
    /// The line under way: its listener, the tasks that follow it, and how many samples it was
    /// given (the quiet first not counted).
    private var current: (number: Int, listener: SpokenQuestionListener, tasks: [Task<Void, Never>], given: Int)?
    private var count = 0
    /// The latest samples, for the next listener: what came after the previous line's end.
    private var recent: [Int16] = []
    private var paused = false
    private(set) var finished = false
    private var lastPartial = ""

    init(sampleRate: Int, makeListener: @escaping LiveCaptioner.ListenerMaker, sink: AsyncStream<LiveCaptioner.Event>.Continuation, commands: AsyncStream<LiveCaptioner.Command>.Continuation) {
        self.sampleRate = sampleRate
        self.makeListener = makeListener
        self.sink = sink
        self.commands = commands
    }

    /// How much recent audio is kept to hand on to the next line.
    private var keptSamples: Int { sampleRate * 8 }
    private var quietFirst: Int { sampleRate / 4 }

    func handle(_ command: LiveCaptioner.Command) async {
        switch command {
        case .samples(let samples):
            guard !paused, !finished else { return }
            recent += samples
            if recent.count > keptSamples * 2 { recent.removeFirst(recent.count - keptSamples) }
            if let line = current {
                current?.given += samples.count
                await line.listener.add(samples)
            } else {
                await startLine(carrying: samples)
            }
        case .pause:
            guard !paused, !finished else { return }
            paused = true
            _ = await endLine()
            recent = []
        case .resume:
            paused = false
        case .finish:
            guard !finished else { return }
            // What followed the last line's end is captioned too (a few rounds at most).
            for _ in 0..<4 {
                guard let carry = await endLine(), carry.count >= sampleRate / 5 else { break }
                await startLine(carrying: carry)
            }
            finished = true
        case .partial(let number, let words):
            guard current?.number == number, words != lastPartial else { return }
            lastPartial = words
            sink.yield(.partial(words))
        case .ended(let number, let outcome):
            guard let line = current, line.number == number else { return }
            let carry = await handOn(line, outcome)
            guard !paused, !finished else { return }
            await startLine(carrying: carry)
        }
    }

    /// Starts the next line with `carried` (what followed the previous line's end).
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
        let commands = self.commands
        let tasks = [
            Task {
                let outcome: Result<SpokenQuestionListener.Outcome, any Error>
                do { outcome = .success(try await listener.result()) } catch { outcome = .failure(error) }
                commands.yield(.ended(line: number, outcome))
            },
            Task {
                for await words in await listener.partials() { commands.yield(.partial(line: number, words: words)) }
            },
        ]
        current = (number, listener, tasks, carried.count)
        // A moment of quiet first, so the detector learns the room before any speech that the
        // previous line handed on.
        await listener.add([Int16](repeating: 0, count: quietFirst) + carried)
    }

    /// Reports the line's outcome and returns what followed its end, for the next line.
    private func handOn(_ line: (number: Int, listener: SpokenQuestionListener, tasks: [Task<Void, Never>], given: Int), _ outcome: Result<SpokenQuestionListener.Outcome, any Error>) async -> [Int16] {
        current = nil
        line.tasks[1].cancel()
        report(outcome)
        let lag = await line.listener.transcriptLag ?? .zero
        let taken = await line.listener.recordedSamples - quietFirst
        let cut = await line.listener.endedAtLongest
        // The recording after the line's last word: what the listener had after it (the
        // detector's end is the last loud frame: anything said later is in there) and what it was
        // given once it had decided. Not a sample more after a natural end: the line's own last
        // word would be heard again, and again. A line cut at the longest may have cut a word in
        // two: its last moments are heard again, so that the word is whole in one of the lines.
        let untaken = max(0, line.given - taken)
        let overlap = cut ? sampleRate * LiveCaptioner.overlapAtCut.milliseconds / 1000 : 0
        let after = min(recent.count, sampleRate * lag.milliseconds / 1000 + untaken + overlap)
        return Array(recent.suffix(after))
    }

    /// Stops the line under way, reports its words, and returns what followed their end (nil
    /// when no line was under way).
    private func endLine() async -> [Int16]? {
        guard let line = current else { return nil }
        await line.listener.stop()
        let outcome: Result<SpokenQuestionListener.Outcome, any Error>
        do { outcome = .success(try await line.listener.result()) } catch { outcome = .failure(error) }
        line.tasks[0].cancel()
        return await handOn(line, outcome)
    }

    private func report(_ outcome: Result<SpokenQuestionListener.Outcome, any Error>) {
        lastPartial = ""
        switch outcome {
        case .success(.heard(let transcription, _)):
            let text = LiveCaptioner.cleaned(transcription.text)
            if !text.isEmpty { sink.yield(.line(text)) } else { sink.yield(.partial("")) }
        case .success(.noSpeech):
            break
        case .failure(let error):
            sink.yield(.trouble(error.localizedDescription))
        }
    }
}
