import Assistant
import Foundation
import FrameEmulator
import Glasses
import Monocle
import MonocleEmulator
@testable import SibylApp
import SibylCore
import SibylTestSupport
import Testing

/// Questions heard as the glasses stream them (the glasses session's listener): the words show on
/// the glasses while the wearer speaks, Sibyl ends the question when it hears its end (no second
/// tap), and the answer shows as it is written.
///
/// Words shown while the wearer speaks need a partial transcript before the speech (real-time audio
/// of 2–3 s) ends, which a machine whose cores run the rest of the suite cannot promise: this suite
/// runs in a `swift test` of its own after the others (scripts/test.sh), and the main run skips it.
@Suite(.timeLimit(.minutes(30)), .serialized, .enabled(if: TestGlasses.available, "the MicroPython interpreter is not installed (sibyl models install emulator)"))
struct RealTimeGlassesTests {
    typealias Helpers = GlassesEndToEndTests
    static let enginesReady = Helpers.enginesReady

    /// A transport that passes everything through and keeps what Sibyl wrote to the data channel.
    final class WriteLog: GlassesTransport {
        let inner: any GlassesTransport
        let writes = Observed<[Data]>([])

        init(_ inner: any GlassesTransport) { self.inner = inner }

        var events: AsyncStream<GlassesTransportEvent> { inner.events }
        func connect() async throws { try await inner.connect() }
        func disconnect() async { await inner.disconnect() }
        func write(_ bytes: Data, to channel: GlassesChannel) async throws {
            if channel == .data { writes.update { $0.append(bytes) } }
            try await inner.write(bytes, to: channel)
        }

        /// The app messages written, by their command.
        var commands: [String] { writes.value.map { String(decoding: $0.prefix(4), as: UTF8.self) } }
    }

    /// A spoken question followed by quiet, as a wearer who asks and waits.
    static func questionThenQuiet(_ text: String) async throws -> Data {
        let speech = try AudioResampling.speechPCM16(fromWAV: await Helpers.speech(text))
        let quiet = [Int16](repeating: 0, count: AudioResampling.speechSampleRate * 3)
        return AudioResampling.wav(pcm16: speech + quiet, sampleRate: AudioResampling.speechSampleRate).encoded()
    }

    @Test(.enabled(if: enginesReady, "the local chat, speech-to-text and espeak-ng engines are not installed"))
    func monocleShowsTheWordsAsTheyAreSpokenAndSibylEndsTheQuestion() async throws {
        // The answer comes in pieces (a scripted model), so that it is seen to go out as it is written.
        try await Helpers.withScriptedModel(answer: ["Paris is ", "the capital ", "of France."], title: "Capital") { _, environment in
        try await Helpers.withRuntime(environment: environment) { runtime, _ in
            try await TestGlasses.with(configure: { $0.realTimeMicrophone = true }) { glasses in
                let log = WriteLog(EmulatorTransport(emulator: glasses))
                var options = GlassesSessionOptions(connection: .fast, monocle: .fast)
                // English, as a terminal or a page in English would say: the fast recogniser hears it.
                options.languageHint = "en"
                let session = try runtime.glasses.session(transport: log, kind: .monocle, options: options)
                let events = Helpers.Events()
                let serving = Task { await session.run { events.record($0) } }
                try await withTeardown {
                    _ = try await glasses.waitForScreen(timeout: .seconds(300)) { $0.lines.contains { $0.lowercased().contains("tap") } }
                    try await glasses.speak(wav: Self.questionThenQuiet("What is the capital of France?"))
                    let before = await glasses.displayLog.count
                    // One tap to ask; nothing ends the question but what Sibyl hears.
                    await glasses.tap()
                    let (question, answer, timings) = try await events.answered()
                    #expect(question.lowercased().contains("capital"), "\(question)")
                    #expect(answer == "Paris is the capital of France.", "\(answer)")
                    #expect(timings.streamed)
                    let commands = log.commands
                    // The words heard so far went to the glasses before Sibyl ended the recording…
                    let stop = try #require(commands.firstIndex(of: "stp:"), "Sibyl did not end the recording: \(commands)")
                    #expect(commands[..<stop].contains("hrd:"), "\(commands)")
                    // …and the glasses showed them while listening (words of the question's start: on a
                    // busy machine the only partial may be of its first words, heard as best they can be).
                    let screens = await glasses.displayLog[before...]
                    let heard = screens.first { screen in
                        screen.lines.contains { $0.hasPrefix("Listening") } && screen.lines.contains { !$0.hasPrefix("Listening") && $0.contains { $0.isLetter } }
                    }
                    #expect(heard != nil, "no screen showed the words while listening: \(screens.map(\.lines))")
                    // The answer went out as it was written: a cleared screen, then its pieces.
                    let answerCommands = commands[stop...].filter { ["clr:", "res:"].contains($0) }
                    #expect(answerCommands.first == "clr:", "\(commands)")
                    #expect(answerCommands.filter { $0 == "res:" }.count > 1, "\(commands)")
                    // Pieces add up to the answer once, whole words at a time.
                    let shown = try await glasses.waitForScreen(after: before) { $0.lines.joined(separator: " ").contains("France.") }
                    #expect(shown.lines.joined(separator: " ").hasPrefix("Paris is the capital of France."), "\(shown.lines)")
                    #expect(shown.texts.allSatisfy { $0.color != DisplayFrame.Object.red })
                    print(String(
                        format: "[monocle, streamed] after the end of speech: transcript %.0f ms, first answer words %.0f ms",
                        Helpers.ms(timings.speechToText), Helpers.ms(timings.firstWords)
                    ))
                } teardown: {
                    await session.stop()
                    serving.cancel()
                    _ = try? await waitFor("the glasses session to end", within: .seconds(60)) { await serving.value }
                }
            }
        }
        }
    }

    @Test(.enabled(if: enginesReady, "the local chat, speech-to-text and espeak-ng engines are not installed"))
    func frameShowsTheWordsAsTheyAreSpokenAndSibylStopsTheMicrophone() async throws {
        try await Helpers.withFrameAssistant(environment: [:], configure: { $0.languageHint = "en" }) { emulator, events, _ in
            let samples = try AudioResampling.speechPCM16(fromWAV: await Helpers.speech("What is the capital of France?"))
            // Frame's microphone hears the question, then quiet for as long as it runs.
            emulator.setMicrophoneInput(samples: samples, sampleRate: 16_000)
            let before = emulator.display.frames.count
            try await emulator.tap()
            let (question, answer, timings) = try await events.answered()
            #expect(question.lowercased().contains("capital"), "\(question)")
            #expect(answer.contains("Paris"), "\(answer)")
            #expect(timings.streamed)
            // Only Sibyl could have stopped the microphone: the wearer tapped once.
            #expect(emulator.peripherals.microphone == nil)
            // Words heard showed before the question was answered: something besides the status line
            // (on a busy machine the only partial may be of the first words, heard as best they can be).
            let frames = emulator.display.frames[before...].map { $0.texts.joined(separator: " ") }
            let thinking = try #require(frames.firstIndex { $0.contains("Thinking") }, "\(frames)")
            #expect(frames[..<thinking].contains { !$0.hasPrefix("Listening") && $0.contains { $0.isLetter } }, "\(frames)")
            _ = try await Helpers.waitForFrameScreen(emulator) { $0.contains("Paris") }
            print(String(
                format: "[frame, streamed] after the end of speech: transcript %.0f ms, first answer words %.0f ms",
                Helpers.ms(timings.speechToText), Helpers.ms(timings.firstWords)
            ))
        }
    }
}
