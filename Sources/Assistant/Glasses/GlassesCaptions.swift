import Foundation
public import Glasses
public import SibylCore

/// Live captions on glasses (Monocle or Frame): the glasses stream their microphone, a
/// ``LiveCaptioner`` writes what is said as it is said, and the last lines show on the display,
/// the line being spoken growing word by word. A tap pauses and resumes. Finished lines (and their
/// translations, when asked for) go to `keep`, which saves the transcript.
public actor GlassesCaptions {
    /// What happens, for the CLI, the browser and the logs.
    public enum Event: Sendable, Equatable {
        case state(GlassesState)
        case notice(String)
        /// The words of the line being spoken, so far.
        case partial(String)
        /// A finished line, and its translation when captions are translated (kept by then).
        case line(String, translation: String?)
        /// The wearer paused (true) or resumed (false).
        case paused(Bool)
        /// A line could not be transcribed or translated; captions go on.
        case trouble(String)
    }

    /// Translates a finished line (through the chat model); nil when lines are shown as heard.
    public typealias Translator = @Sendable (String) async throws -> String
    /// Keeps a finished line and its translation.
    public typealias Keeper = @Sendable (_ line: String, _ translation: String?) async -> Void

    private let connection: GlassesConnection
    private let captioner: LiveCaptioner
    private let translate: Translator?
    private let keep: Keeper
    private var observer: @Sendable (Event) -> Void = { _ in }
    private var resampler = StreamingResampler(from: 8_000, to: AudioResampling.speechSampleRate)
    /// Finished lines as shown (translated when captions are), the newest last.
    private var shown: [String] = []
    private var forming = ""
    private var paused = false
    private var started = false
    private var lines: Task<Void, Never>?
    /// Finished lines waiting for their translation, in order.
    private var translating: Task<Void, Never>?

    /// How many finished lines are kept for the display (it shows the last few rows).
    static let keptLines = 3

    public init(connection: GlassesConnection, captioner: LiveCaptioner, translate: Translator? = nil, keep: @escaping Keeper = { _, _ in }) {
        self.connection = connection
        self.captioner = captioner
        self.translate = translate
        self.keep = keep
    }

    /// Captions until the connection's events end (``stop()``).
    public func run(observer: @escaping @Sendable (Event) -> Void = { _ in }) async {
        self.observer = observer
        let captioner = self.captioner
        lines = Task {
            for await event in captioner.events { await self.captioned(event) }
        }
        for await event in connection.events {
            switch event {
            case .state(let state):
                observer(.state(state))
                if state.isRunning, !started {
                    started = true
                    do {
                        try await connection.startCaptions()
                    } catch {
                        observer(.notice("captions could not start: \(error.localizedDescription)"))
                    }
                } else if state.isDisconnected {
                    // The next link starts them again; what was being said ends its line.
                    started = false
                    resampler = StreamingResampler(from: 8_000, to: AudioResampling.speechSampleRate)
                    captioner.pause()
                    captioner.resume()
                }
            case .notice(let text):
                observer(.notice(text))
            case .updateFailed(let reason):
                observer(.notice("the firmware update failed: \(reason)"))
            case .audio(let bytes):
                guard !paused else { break }
                let samples = resampler.add(AudioResampling.floats(fromSigned8: bytes))
                if !samples.isEmpty { captioner.add(AudioResampling.pcm16(samples)) }
            case .captionsPaused(let isPaused):
                paused = isPaused
                observer(.paused(isPaused))
                if isPaused {
                    captioner.pause()
                } else {
                    resampler = StreamingResampler(from: 8_000, to: AudioResampling.speechSampleRate)
                    captioner.resume()
                }
                await display()
            case .transferStarted, .recording, .request:
                break
            }
        }
        await captioner.finish()
        await lines?.value
        await translating?.value
    }

    /// Ends captions: the glasses stop streaming, the line being spoken is finished and kept.
    public func stop() async {
        await connection.stopCaptions()
        await captioner.finish()
        await lines?.value
        await translating?.value
    }

    private func captioned(_ event: LiveCaptioner.Event) async {
        switch event {
        case .partial(let words):
            forming = words
            if !words.isEmpty { observer(.partial(words)) }
        case .line(let line):
            forming = ""
            guard let translate else {
                shown = Array((shown + [line]).suffix(Self.keptLines))
                await keep(line, nil)
                observer(.line(line, translation: nil))
                break
            }
            // Shown as heard until the translation comes; lines are translated one after another.
            shown = Array((shown + [line]).suffix(Self.keptLines))
            let previous = translating
            translating = Task {
                await previous?.value
                await self.translated(line, by: translate)
            }
        case .trouble(let text):
            observer(.trouble(text))
        }
        await display()
    }

    private func translated(_ line: String, by translate: Translator) async {
        do {
            let translation = try await translate(line).trimmingCharacters(in: .whitespacesAndNewlines)
            if let index = shown.lastIndex(of: line) { shown[index] = translation }
            await keep(line, translation)
            observer(.line(line, translation: translation))
        } catch {
            observer(.trouble("a line could not be translated: \(error.localizedDescription)"))
            await keep(line, nil)
            observer(.line(line, translation: nil))
        }
        await display()
    }

    private func display() async {
        await connection.showCaptions(forming.isEmpty ? shown : shown + [forming], paused: paused)
    }
}
