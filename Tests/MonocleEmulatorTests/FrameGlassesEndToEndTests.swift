import Assistant
import Foundation
import FrameEmulator
import FrameGlasses
import Glasses
import LocalEngines
import OpenAITestServer
@testable import SibylApp
import SibylCore
import SibylTestSupport
import Testing

/// Questions asked through a virtual Frame running Sibyl's Frame app, answered by Sibyl: part of
/// the serialized glasses end-to-end suite, so its local engines never load beside Monocle's.
extension GlassesEndToEndTests {

    /// Runs Sibyl's glasses assistant on a virtual Frame with the given runtime settings.
    static func withFrameAssistant(
        environment: [String: String], visionModel: String? = nil,
        configure: (inout GlassesSessionOptions) -> Void = { _ in },
        prepare: (SibylRuntime) async throws -> Void = { _ in },
        _ body: (FrameEmulator, Events, SibylRuntime) async throws -> Void
    ) async throws {
        try await withRuntime(environment: environment) { runtime, home in
            let emulator = try FrameEmulator(flash: home.appendingPathComponent("frame-flash"))
            try await emulator.powerOn()
            var options = GlassesSessionOptions(visionModel: visionModel, frame: .fast)
            configure(&options)
            try await prepare(runtime)
            let session = try runtime.glasses.session(transport: EmulatorFrameTransport(emulator: emulator), kind: .frame, options: options)
            let events = Events()
            let serving = Task { await session.run { events.record($0) } }
            try await withTeardown {
                _ = try await events.next(timeout: .seconds(300)) { if case .state(let state) = $0, state.isRunning { true } else { nil } }
                try await body(emulator, events, runtime)
            } teardown: {
                await session.stop()
                serving.cancel()
                _ = try? await waitFor("the glasses session to end", within: .seconds(60)) { await serving.value }
                await emulator.powerOff()
            }
        }
    }

    static func frameShown(_ emulator: FrameEmulator) -> String {
        (emulator.display.current?.texts ?? []).joined(separator: " ")
    }

    /// Waits for the display to show something (the virtual Frame reports no redraws as events:
    /// it is looked at until it does); the limit is a ceiling against hangs only.
    static func waitForFrameScreen(_ emulator: FrameEmulator, timeout: Duration = .seconds(300), _ condition: (String) -> Bool) async throws -> String {
        try await eventually(within: timeout, "the display; it shows \(frameShown(emulator).debugDescription)") {
            let text = frameShown(emulator)
            return condition(text) ? text : nil
        }
    }

    /// Waits until Frame's app has read all of what its microphone hears (played at the device
    /// clock's pace: as long as the speech lasts), so that a tap after it ends a whole question.
    static func waitUntilHeard(_ emulator: FrameEmulator, samples: Int) async throws {
        try await eventually(within: .seconds(300), "the app to read the microphone's \(samples) samples; it read \(emulator.peripherals.microphoneSamplesRead)") {
            emulator.peripherals.microphoneSamplesRead >= samples
        }
    }

    /// Speaks `wav` into the virtual Frame's microphone between two taps, as a wearer would.
    static func askFrame(_ emulator: FrameEmulator, wav: Data) async throws {
        let samples = try AudioResampling.speechPCM16(fromWAV: wav)
        emulator.setMicrophoneInput(samples: samples, sampleRate: 16_000)
        try await emulator.tap()
        _ = try await waitForFrameScreen(emulator) { $0.contains("Listening") }
        try await waitUntilHeard(emulator, samples: samples.count)
        try await emulator.tap()
    }

    @Test(.enabled(if: Self.enginesReady, "the local chat, speech-to-text and espeak-ng engines are not installed"))
    func aSpokenQuestionIsAnsweredOfflineOnFrameAndSaved() async throws {
        try await Self.withFrameAssistant(environment: [:]) { emulator, events, runtime in
            try await Self.askFrame(emulator, wav: await Self.speech("What is the capital of France?"))
            let (question, answer, timings) = try await events.answered()
            #expect(question.lowercased().contains("capital"), "\(question)")
            #expect(answer.contains("Paris"), "\(answer)")
            _ = try await Self.waitForFrameScreen(emulator) { $0.contains("Paris") }
            print(String(
                format: "[frame] one spoken question: audio transfer %.0f ms, conversion %.1f ms, speech-to-text %.0f ms, LLM %.0f ms, display %.1f ms; Sibyl's own overhead %.1f ms",
                Self.ms(timings.audioTransfer), Self.ms(timings.audioConversion), Self.ms(timings.speechToText),
                Self.ms(timings.languageModel), Self.ms(timings.display), Self.ms(timings.overhead)
            ))
            // (The overhead is a benchmark figure, printed, never a bound of this test.)
            let conversations = try await runtime.store.conversations(source: .glasses)
            #expect(conversations.count == 1)
            let messages = try await runtime.store.messages(in: try #require(conversations.first).conversation.id)
            #expect(messages.map(\.role) == [.user, .assistant])
        }
    }

    @Test(.enabled(if: Self.enginesReady, "the local speech-to-text and espeak-ng engines are not installed"))
    func aDoubleTapAsksAboutAPhotoWithTheVisionModel() async throws {
        try await Self.withScriptedModel(answer: ["A red ", "mug on a desk."], title: "Mug") { server, environment in
            // A window of 3 s (the wearer's 300 ms by default): the virtual Frame stamps each tap
            // with the host's clock, which a busy machine can stall between the two taps.
            try await Self.withFrameAssistant(environment: environment, visionModel: "test-vision", configure: { $0.frameTapWindow = .seconds(3) }) { emulator, events, _ in
                let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data((0..<3000).map { UInt8(truncatingIfNeeded: $0 * 13) & 0xFE }) + Data([0xFF, 0xD9])
                emulator.setCameraImage(jpeg: jpeg)
                let samples = try AudioResampling.speechPCM16(fromWAV: await Self.speech("What is this?"))
                emulator.setMicrophoneInput(samples: samples, sampleRate: 16_000)
                try await emulator.tap()
                // A double tap is two taps within the gesture's window: the 100 ms between them is
                // the wearer's gesture this test simulates, not a wait for anything.
                try await Task.sleep(for: .milliseconds(100))
                try await emulator.tap()
                _ = try await Self.waitForFrameScreen(emulator) { $0.contains("Listening (photo)") }
                try await Self.waitUntilHeard(emulator, samples: samples.count)
                try await emulator.tap()
                _ = try await Self.waitForFrameScreen(emulator) { $0.contains("red mug") }
                let request = try Self.firstStreamedRequest(to: server)
                #expect(request["model"] as? String == "test-vision")
                let body = String(describing: request["messages"] ?? "")
                #expect(body.contains("data:image/jpeg;base64,\(jpeg.base64EncodedString().prefix(40))"))
                _ = events
            }
        }
    }

    @Test(.enabled(if: Self.enginesReady, "the local speech-to-text and espeak-ng engines are not installed"))
    func translatorModeOnFrameTranslatesWhatTheWearerSays() async throws {
        try await Self.withScriptedModel(answer: ["Good morning, ", "the weather is nice today."], title: "Weather") { server, environment in
            try await Self.withFrameAssistant(environment: environment, configure: { $0.translateTo = "English"; $0.language = "de" }) { emulator, events, _ in
                try await Self.askFrame(emulator, wav: await Self.speech("Guten Morgen, das Wetter ist heute schön.", voice: "de"))
                let heard = try await events.next { if case .heard(let text) = $0 { text } else { nil } }
                #expect(heard.lowercased().contains("morgen"), "\(heard)")
                _ = try await Self.waitForFrameScreen(emulator) { $0.contains("weather is nice today") }
                let request = try Self.firstStreamedRequest(to: server)
                let messages = try #require(request["messages"] as? [[String: Any]])
                #expect((messages.first?["content"] as? String)?.contains("Translate each message the user sends into English") == true)
                #expect((messages.last?["content"] as? String)?.lowercased().contains("morgen") == true)
            }
        }
    }

    @Test(.enabled(if: Self.enginesReady, "the local speech-to-text and espeak-ng engines are not installed"))
    func aFrameWearerIsAnsweredFromTheirDocumentsWithACitation() async throws {
        try await Self.withScriptedModel(answer: ["Every Friday, ", "by the night crew [1]."], title: "Coffee machine") { server, environment in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-frame-docs-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let note = folder.appendingPathComponent("office.md")
            try Data("""
            # Office

            ## Kitchen

            The coffee machine on the third floor is cleaned every Friday by the night crew.

            ## Post

            Parcels are collected from the front desk at four in the afternoon.
            """.utf8).write(to: note)
            try await Self.withFrameAssistant(
                environment: environment.merging(["SIBYL_EMBEDDINGS_PROVIDER": "local"]) { $1 },
                configure: { $0.documents = DocumentScope() },
                prepare: { runtime in
                    let added = try await runtime.documents.add([note])
                    #expect(added.summary.failed.isEmpty)
                }
            ) { emulator, events, runtime in
                try await Self.askFrame(emulator, wav: await Self.speech("How often is the coffee machine cleaned?"))
                let answer = try await events.next { if case .answered(_, let answer, _) = $0 { answer } else { nil } }
                #expect(answer.contains("Every Friday"), "\(answer)")
                _ = try await Self.waitForFrameScreen(emulator) { $0.contains("night crew") }
                // The model was given the passage that answers it, numbered for citing.
                let request = try Self.firstStreamedRequest(to: server)
                #expect(String(describing: request["messages"] ?? "").contains("cleaned every Friday by the night crew"))
                let conversation = try #require(try await runtime.store.conversations(source: .glasses).first)
                let saved = try await runtime.store.messages(in: conversation.conversation.id)
                let citation = try #require(saved.last?.citations.first)
                #expect(citation.number == 1)
                #expect(citation.quote.contains("night crew"), "\(citation.quote)")
            }
        }
    }
}
