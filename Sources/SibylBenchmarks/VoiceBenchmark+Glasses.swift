import Assistant
import Foundation
import FrameEmulator
import Glasses
import LocalEngines
import MonocleEmulator
import SibylApp
import SibylCore
import TestFixtures

extension VoiceBenchmark {
    /// What one kind of virtual glasses measured over the recordings.
    struct GlassesFigures {
        var kind: String
        /// From the end of speech (as the listener heard it) to the transcript, and to the first answer words sent to the glasses.
        var transcript: [Double] = []
        var firstWords: [Double] = []
        var errors = WordErrorRate(errors: 0, referenceWords: 0)
        var failures: [String] = []
    }

    /// Each recording asked through a virtual Monocle and a virtual Frame as a wearer would: a tap,
    /// the question spoken into the glasses' microphone in real time (8 kHz, 8-bit, as the
    /// glasses record), then quiet. The glasses stream the recording, Sibyl hears its end and
    /// stops the recording, and the answer goes to the display as it is written.
    func glassesQuestions(_ recordings: [VoiceRecordings.Recording], layout: EngineLayout) async throws -> [GlassesFigures] {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-bench-voice-glasses-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let runtime = try SibylRuntime(environment: [
            "SIBYL_HOME": home.path, "SIBYL_ENGINES": layout.root.path, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin",
            "SIBYL_CHAT_TEMPERATURE": "0", "SIBYL_CHAT_MAX_TOKENS": "40", "SIBYL_TITLES": "none",
        ])
        await runtime.voice.warmUp()
        var options = GlassesSessionOptions()
        options.connection.reconnect = false
        options.languageHint = "en"
        var figures: [GlassesFigures] = []
        do {
            figures.append(try await monocle(recordings, runtime: runtime, options: options, layout: layout))
            figures.append(try await frame(recordings, runtime: runtime, options: options, home: home))
        } catch {
            await runtime.shutdown()
            throw error
        }
        await runtime.shutdown()
        say("a question asked through the virtual glasses, streamed as it is spoken (Silero and the words' sense end it, Sibyl stops the recording; \(recordings.count) recordings of up to 6 s, as the glasses record them):")
        for figure in figures {
            say(String(format: "  %@: transcript %.0f ms after the end of speech (p90 %.0f), first answer words sent to the glasses %.0f ms after it (p90 %.0f); WER %.1f %%; %d of %d failed",
                       figure.kind as NSString, Statistics.median(figure.transcript), Statistics.percentile(90, of: figure.transcript),
                       Statistics.median(figure.firstWords), Statistics.percentile(90, of: figure.firstWords), figure.errors.rate * 100, figure.failures.count, recordings.count))
            for failure in figure.failures { say("    failed: \(failure)") }
        }
        return figures
    }

    /// The recording, then three seconds of quiet, as a WAV at 16 kHz.
    private static func spoken(_ recording: VoiceRecordings.Recording) -> Data {
        let rate = AudioResampling.speechSampleRate
        return AudioResampling.wav(pcm16: AudioResampling.pcm16(recording.samples) + [Int16](repeating: 0, count: rate * 3), sampleRate: rate).encoded()
    }

    private func monocle(_ recordings: [VoiceRecordings.Recording], runtime: SibylRuntime, options: GlassesSessionOptions, layout: EngineLayout) async throws -> GlassesFigures {
        var figures = GlassesFigures(kind: "Monocle")
        let interpreter = MicroPythonInterpreter(module: layout.microPythonModule)
        try await MonocleBenchmark.withGlasses(interpreter: interpreter, writeLength: 253, realTimeMicrophone: true) { glasses in
            let session = try runtime.glasses.session(transport: EmulatorTransport(emulator: glasses), kind: .monocle, options: options)
            let (events, sink) = AsyncStream<GlassesEvent>.makeStream()
            let serving = Task { await session.run { sink.yield($0) } }
            defer { serving.cancel() }
            var iterator = events.makeAsyncIterator()
            _ = try await glasses.waitForScreen(timeout: .seconds(120)) { $0.lines.contains { $0.lowercased().contains("tap") } }
            for (index, recording) in ([recordings[0]] + recordings).enumerated() {
                try await glasses.speak(wav: Self.spoken(recording))
                await glasses.tap()
                let outcome = try await Self.nextOutcome(&iterator)
                if index > 0 { figures.add(outcome, recording: recording) }
                // Back to "Tap to speak" once the answer has been revealed (the screen's last words shown).
                let mark = await glasses.displayLog.count
                _ = try await glasses.waitForScreen(after: mark, timeout: .seconds(120)) { $0.lines.contains { $0.hasPrefix("Tap to") } }
            }
            await session.stop()
        }
        return figures
    }

    private func frame(_ recordings: [VoiceRecordings.Recording], runtime: SibylRuntime, options: GlassesSessionOptions, home: URL) async throws -> GlassesFigures {
        var figures = GlassesFigures(kind: "Frame")
        let emulator = try FrameEmulator(flash: home.appendingPathComponent("frame-flash"))
        try await emulator.powerOn()
        defer { Task { await emulator.powerOff() } }
        let session = try runtime.glasses.session(transport: EmulatorFrameTransport(emulator: emulator), kind: .frame, options: options)
        let (events, sink) = AsyncStream<GlassesEvent>.makeStream()
        let serving = Task { await session.run { sink.yield($0) } }
        defer { serving.cancel() }
        var iterator = events.makeAsyncIterator()
        while let event = await iterator.next() {
            if case .state(let state) = event, state.isRunning { break }
        }
        for (index, recording) in ([recordings[0]] + recordings).enumerated() {
            // At the 8 kHz Sibyl's app records at, band-limited as Frame's microphone filter would
            // (the virtual Frame only picks samples).
            let narrow = AudioResampling.resample(recording.samples, from: AudioResampling.speechSampleRate, to: 8_000)
            emulator.setMicrophoneInput(samples: AudioResampling.pcm16(narrow) + [Int16](repeating: 0, count: 8_000 * 3), sampleRate: 8_000)
            try await emulator.tap()
            let outcome = try await Self.nextOutcome(&iterator)
            if index > 0 { figures.add(outcome, recording: recording) }
        }
        await session.stop()
        return figures
    }

    /// The next answer (or failure) the glasses session reports.
    private static func nextOutcome(_ iterator: inout AsyncStream<GlassesEvent>.Iterator) async throws -> Swift.Result<(question: String, timings: GlassesTimings), BenchmarkFailure> {
        while let event = await iterator.next() {
            switch event {
            case .answered(let question, _, let timings): return .success((question, timings))
            case .failed(_, let detail): return .failure(BenchmarkFailure(message: detail))
            default: continue
            }
        }
        throw BenchmarkFailure(message: "the glasses session ended")
    }
}

extension VoiceBenchmark.GlassesFigures {
    mutating func add(_ outcome: Swift.Result<(question: String, timings: GlassesTimings), BenchmarkFailure>, recording: VoiceRecordings.Recording) {
        switch outcome {
        case .success(let answered):
            errors = errors + WordErrorRate(reference: recording.transcript, hypothesis: answered.question)
            guard answered.timings.streamed else {
                failures.append("\(recording.id): not heard as it was spoken")
                return
            }
            transcript.append(Statistics.milliseconds(answered.timings.speechToText))
            firstWords.append(Statistics.milliseconds(answered.timings.firstWords))
            say(String(format: "  %@ %@: transcript %.0f ms, first words %.0f ms — %@", kind as NSString, recording.id as NSString,
                       Statistics.milliseconds(answered.timings.speechToText), Statistics.milliseconds(answered.timings.firstWords), answered.question as NSString))
        case .failure(let failure):
            failures.append("\(recording.id): \(failure.message)")
        }
    }
}
