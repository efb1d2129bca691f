import Assistant
import Foundation
import FrameEmulator
import Glasses
import MonocleEmulator
@testable import SibylApp
import SibylCore
import SibylTestSupport
import Testing

/// Live captions on both virtual glasses, on the local engines: what is said around the wearer
/// (played into the glasses' microphone at its real pace) shows on the display as it is said, a
/// tap pauses and resumes, and the transcript is kept. Part of the serialized glasses suite. (The
/// words as they form are not looked for here: on a busy machine a short line may end before its
/// first partial transcript does; `LiveCaptionerTests` shows them.)
extension GlassesEndToEndTests {
    /// What a captions session reported, in order.
    typealias CaptionEvents = EventLog<GlassesCaptions.Event>

    /// Two sentences said around the wearer, then quiet.
    static func talk() async throws -> [Int16] {
        let first = try AudioResampling.speechPCM16(fromWAV: await speech("The meeting starts at nine in the morning."))
        let second = try AudioResampling.speechPCM16(fromWAV: await speech("Please bring the annual report with you."))
        let rate = AudioResampling.speechSampleRate
        return first + [Int16](repeating: 0, count: rate) + second + [Int16](repeating: 0, count: rate * 3)
    }

    /// Waits until the lines captioned hold each word.
    static func waitForCaptions(_ events: CaptionEvents, _ words: [String]) async throws {
        _ = try await events.next(timeout: .seconds(300)) { _ in
            let heard = events.heard.lowercased()
            return words.allSatisfy { heard.contains($0) } ? true : nil
        }
    }

    /// The transcript kept: the captions conversation's messages.
    static func keptTranscript(_ runtime: SibylRuntime, _ session: GlassesCaptionsSession) async throws -> String {
        let id = try #require(await session.conversation, "no conversation was started for the transcript")
        let conversation = try await runtime.conversations.conversation(id: id)
        #expect(conversation.source == .captions)
        return try await runtime.conversations.messages(in: id).map(\.text).joined(separator: " ")
    }

    /// Runs the captions session while `body` acts, then stops it and waits for it to end.
    static func serving(_ session: GlassesCaptionsSession, _ body: (CaptionEvents) async throws -> Void) async throws {
        let events = CaptionEvents()
        let serving = Task { await session.run { events.record($0) } }
        try await withTeardown {
            try await body(events)
        } teardown: {
            await session.stop()
            serving.cancel()
            _ = try? await waitFor("the captions session to end", within: .seconds(60)) { await serving.value }
        }
    }

    /// Captions on a virtual Frame (powered off afterwards) once its app has started them.
    static func withFrameCaptions(
        _ runtime: SibylRuntime, home: URL, options: CaptionOptions, _ body: (FrameEmulator, GlassesCaptionsSession, CaptionEvents) async throws -> Void
    ) async throws {
        let emulator = try FrameEmulator(flash: home.appendingPathComponent("frame-flash"))
        try await emulator.powerOn()
        let session = try runtime.glasses.captions(
            transport: EmulatorFrameTransport(emulator: emulator), kind: .frame, options: options, session: GlassesSessionOptions(frame: .fast)
        )
        try await withTeardown {
            try await serving(session) { events in
                _ = try await waitForFrameScreen(emulator) { $0.contains("Captions") }
                try await body(emulator, session, events)
            }
        } teardown: {
            await emulator.powerOff()
        }
    }

    @Test(.enabled(if: enginesReady, "the local speech-to-text and espeak-ng engines are not installed"))
    func monocleCaptionsWhatIsSaidAroundTheWearer() async throws {
        try await Self.withRuntime(environment: [:]) { runtime, _ in
            try await TestGlasses.with(configure: { $0.realTimeMicrophone = true; $0.continuousMicrophone = true }) { glasses in
                let session = try runtime.glasses.captions(
                    transport: EmulatorTransport(emulator: glasses), kind: .monocle, options: CaptionOptions(language: "en"),
                    session: GlassesSessionOptions(connection: .fast, monocle: .fast)
                )
                try await Self.serving(session) { events in
                    // The app records on and on once Sibyl starts captions.
                    _ = try await glasses.waitForScreen(timeout: .seconds(300)) { $0.lines.contains { $0.hasPrefix("Captions") } }
                    try await glasses.speak(wav: AudioResampling.wav(pcm16: Self.talk(), sampleRate: AudioResampling.speechSampleRate).encoded())
                    try await Self.waitForCaptions(events, ["meeting", "report"])
                    // The display shows the last line's words.
                    _ = try await glasses.waitForScreen(timeout: .seconds(60)) { $0.lines.joined(separator: " ").lowercased().contains("report") }
                    // A tap pauses; another resumes.
                    await glasses.tap()
                    _ = try await events.next { $0 == .paused(true) ? true : nil }
                    _ = try await glasses.waitForScreen(timeout: .seconds(60)) { $0.lines.contains { $0.hasPrefix("Paused") } }
                    await glasses.tap()
                    _ = try await events.next { $0 == .paused(false) ? true : nil }
                    _ = try await glasses.waitForScreen(timeout: .seconds(60)) { $0.lines.contains { $0.hasPrefix("Captions") } }
                    let transcript = try await Self.keptTranscript(runtime, session).lowercased()
                    #expect(transcript.contains("meeting") && transcript.contains("report"), "\(transcript)")
                }
            }
        }
    }

    @Test(.enabled(if: enginesReady, "the local speech-to-text and espeak-ng engines are not installed"))
    func captionsTranslatedByTheChatModelShowTheTranslationAndKeepBoth() async throws {
        // The chat model (scripted) translates each finished line into German.
        try await Self.withScriptedModel(answer: ["Bitte bringen Sie ", "den Bericht mit."], title: "Titel") { server, environment in
            try await Self.withRuntime(environment: environment) { runtime, home in
                try await Self.withFrameCaptions(runtime, home: home, options: CaptionOptions(translateTo: "de", language: "en")) { emulator, session, events in
                    let said = try AudioResampling.speechPCM16(fromWAV: await Self.speech("Please bring the report with you."))
                    emulator.setMicrophoneInput(samples: said + [Int16](repeating: 0, count: AudioResampling.speechSampleRate * 3), sampleRate: AudioResampling.speechSampleRate, fromNow: true)
                    let (line, translation) = try await events.next(timeout: .seconds(300)) { event -> (String, String)? in
                        if case .line(let line, let translation?) = event { (line, translation) } else { nil }
                    }
                    #expect(line.lowercased().contains("report"), "\(line)")
                    #expect(translation == "Bitte bringen Sie den Bericht mit.")
                    // The glasses show the translation in place of the line as heard.
                    _ = try await Self.waitForFrameScreen(emulator, timeout: .seconds(60)) { $0.contains("Bericht") }
                    // The model was given the line as heard to translate.
                    let request = try Self.firstStreamedRequest(to: server)
                    let messages = try #require(request["messages"] as? [[String: Any]])
                    let asked = messages.last?["content"] as? String ?? ""
                    #expect(asked.lowercased().contains("report"), "\(messages)")
                    // The transcript keeps both, in a translator conversation.
                    let id = try #require(await session.conversation)
                    let conversation = try await runtime.conversations.conversation(id: id)
                    #expect(conversation.source == .captions)
                    #expect(conversation.mode == .translator(target: "de"))
                    let kept = try await runtime.conversations.messages(in: id).map(\.text)
                    #expect(kept.count == 2 && kept[1] == "Bitte bringen Sie den Bericht mit.", "\(kept)")
                }
            }
        }
    }

    @Test(.enabled(if: enginesReady, "the local speech-to-text and espeak-ng engines are not installed"))
    func frameCaptionsWhatIsSaidAroundTheWearer() async throws {
        try await Self.withRuntime(environment: [:]) { runtime, home in
            try await Self.withFrameCaptions(runtime, home: home, options: CaptionOptions(language: "en")) { emulator, session, events in
                emulator.setMicrophoneInput(samples: try await Self.talk(), sampleRate: AudioResampling.speechSampleRate, fromNow: true)
                try await Self.waitForCaptions(events, ["meeting", "report"])
                _ = try await Self.waitForFrameScreen(emulator, timeout: .seconds(60)) { $0.lowercased().contains("report") }
                // A tap pauses (the microphone stops), another resumes (it streams again).
                try await emulator.tap()
                _ = try await events.next { $0 == .paused(true) ? true : nil }
                _ = try await Self.waitForFrameScreen(emulator, timeout: .seconds(60)) { $0.contains("Paused") }
                try await emulator.tap()
                _ = try await events.next { $0 == .paused(false) ? true : nil }
                let transcript = try await Self.keptTranscript(runtime, session).lowercased()
                #expect(transcript.contains("meeting") && transcript.contains("report"), "\(transcript)")
            }
        }
    }
}

extension GlassesEndToEndTests.EventLog<GlassesCaptions.Event> {
    /// The finished lines so far, joined.
    var heard: String {
        all.value.compactMap { if case .line(let line, _) = $0 { line } else { nil } }.joined(separator: " ")
    }
}
