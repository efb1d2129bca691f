import Assistant
import Foundation
import FrameEmulator
import SibylApp
import SibylCore

extension FrameEmulator {
    /// What the `say FILE` console command does: the microphone hears the WAV (as speech at
    /// 16 kHz) from the next `frame.microphone.start`. Returns its length in seconds.
    func hear(wavFile path: String?) throws -> Double {
        guard let path else { throw CLIError("say needs a WAV file: say question.wav") }
        let samples = try AudioResampling.speechPCM16(fromWAV: Data(contentsOf: URL(fileURLWithPath: path)))
        setMicrophoneInput(samples: samples, sampleRate: 16_000)
        return Double(samples.count) / 16_000
    }

    /// What the `photo FILE` console command does: every capture returns the JPEG.
    func see(jpegFile path: String?) throws {
        guard let path else { throw CLIError("photo needs a JPEG file: photo desk.jpg") }
        setCameraImage(jpeg: try Data(contentsOf: URL(fileURLWithPath: path)))
    }
}

/// The virtual Frame in a terminal: what it shows and prints, and the wearer's actions typed.
final class FrameConsole: Sendable {
    let emulator: FrameEmulator
    private let outcomes = EventCounter()
    private let runs = EventCounter()

    init(emulator: FrameEmulator) {
        self.emulator = emulator
    }

    /// What the assistant did, as lines in the terminal; answers and failures are counted for `wait`.
    func report(_ event: GlassesEvent) {
        GlassesConsole.describe(event)
        switch event {
        case .answered, .failed: outcomes.increment()
        case .state(let state) where state.isRunning: runs.increment()
        default: break
        }
    }

    /// Waits until Sibyl's app runs on the glasses, so the wearer's first tap reaches it.
    func waitUntilRunning(timeout: Duration = .seconds(120)) async {
        guard await !runs.wait(untilAtLeast: 1, timeout: timeout) else { return }
        Terminal.print(Terminal.yellow("the glasses did not become ready within \(timeout)"))
    }

    /// Draws each new frame the glasses show, as the lines of text on it.
    func watchDisplay() async {
        var shown = emulator.display.frames.count
        while !Task.isCancelled {
            let frames = emulator.display.frames
            if frames.count != shown, let current = frames.last {
                shown = frames.count
                Terminal.print(Self.render(current.texts))
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    static func render(_ lines: [String]) -> String {
        let width = max(24, lines.map(\.count).max() ?? 0)
        let border = String(repeating: "─", count: width + 2)
        let body = lines.isEmpty ? ["│ " + String(repeating: " ", count: width) + " │"] : lines.map { "│ " + $0.padding(toLength: width, withPad: " ", startingAt: 0) + " │" }
        return Terminal.dim("┌\(border)┐\n") + body.joined(separator: "\n") + Terminal.dim("\n└\(border)┘")
    }

    static let help = "tap · double · say FILE.wav · photo FILE.jpg · wait [SECONDS] · pause [SECONDS] · screen · quit"

    /// Reads the wearer's actions until `quit` or the end of input.
    func readCommands() async {
        await Terminal.readCommands(help: Self.help) { command, argument in
            switch command {
            case "tap":
                try await emulator.tap()
            case "double":
                try await emulator.tap()
                try await Task.sleep(for: .milliseconds(120))
                try await emulator.tap()
            case "say":
                let seconds = try emulator.hear(wavFile: argument)
                Terminal.print(Terminal.dim("the microphone will hear \(String(format: "%.1f", seconds)) s of speech from the next listen; tap to start and tap again to stop"))
            case "photo":
                try emulator.see(jpegFile: argument)
                Terminal.print(Terminal.dim("the camera will see \(argument ?? ""); double-tap to ask about it"))
            case "wait":
                // `wait [SECONDS]`: how long an answer may take (a slow machine's local model needs more).
                await waitForOutcome(timeout: .seconds(Double(argument ?? "180") ?? 180))
            case "pause":
                try await Task.sleep(for: .seconds(Double(argument ?? "1") ?? 1))
            case "screen":
                Terminal.print(Self.render(emulator.display.current?.texts ?? []))
            default:
                return false
            }
            return true
        }
    }

    /// Waits until one more answer (or failure) than before.
    func waitForOutcome(timeout: Duration) async {
        guard await !outcomes.wait(untilAtLeast: outcomes.count + 1, timeout: timeout) else { return }
        Terminal.print(Terminal.yellow("no answer within \(timeout)"))
    }
}
