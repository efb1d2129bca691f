import Assistant
import Foundation
import Monocle
import MonocleEmulator
import SibylApp

/// The terminal side of the virtual glasses: shows the display and takes the wearer's actions.
final class GlassesConsole: Sendable {
    let emulator: MonocleEmulator
    /// Completed answers and failures, so `wait` can wait for the next one.
    private let outcomes = EventCounter()
    /// The device app's `rdy:` messages, as `watchDisplay` sees them.
    private let readies = EventCounter()

    init(emulator: MonocleEmulator) {
        self.emulator = emulator
    }

    /// Prints the screen whenever its status line changes (not on every word revealed or progress step),
    /// and with `showSerial` what the glasses print on their serial port (the app's prints, tracebacks).
    func watchDisplay(showMessages: Bool = false, showSerial: Bool = false) async {
        var lastStatus: String?
        let serial = SerialEcho()
        defer { serial.flush() }
        for await event in emulator.events {
            if case .dataSent(let packet) = event, packet == Self.ready { readies.increment() }
            switch event {
            case .serial(let text) where showSerial:
                serial.feed(text)
            case .display(let frame):
                // "Listening [==   ]" and "Thinking.." are one status each: print when the words change.
                let status = String((frame.texts.last { $0.color == DisplayFrame.Object.yellow }?.text ?? "").filter { $0.isLetter || $0 == " " })
                    .trimmingCharacters(in: .whitespaces)
                if status != lastStatus {
                    lastStatus = status
                    Terminal.print(frame.rendered())
                }
            case .dataSent(let packet) where showMessages:
                let shown = AppMessage(packet: packet)?.description ?? String(decoding: packet.prefix(60), as: UTF8.self).debugDescription
                Terminal.print(Terminal.cyan("glasses → \(shown)"))
            case .restarted(let why):
                if showSerial { serial.flush() }
                Terminal.print(Terminal.dim("[glasses: \(why)]"))
            case .log(let line):
                Terminal.error(Terminal.dim("[micropython] \(line)", stderr: true))
            default:
                break
            }
        }
    }

    /// What the assistant did, as lines in the terminal; answers and failures are counted for `wait`.
    func report(_ event: GlassesEvent) {
        Self.describe(event)
        switch event {
        case .answered, .failed: outcomes.increment()
        default: break
        }
    }

    /// Prints what the assistant did.
    static func describe(_ event: GlassesEvent) {
        switch event {
        case .state(let state):
            Terminal.print(Terminal.dim("[\(state.kind): \(state)]"))
        case .notice(let text):
            Terminal.print(Terminal.yellow("[glasses] \(text)"))
        case .updateFailed(let reason):
            Terminal.print(Terminal.red("[glasses] the firmware update failed: \(reason)"))
        case .heard(let text):
            Terminal.print(Terminal.bold("heard: ") + text)
        case .answered(_, let answer, let timings):
            Terminal.print(Terminal.green("answer: ") + answer)
            if timings.streamed {
                // Heard as it was spoken: the figures count from the end of speech.
                Terminal.print(Terminal.dim(String(
                    format: "  after you stopped: text %.2f s · first words on the glasses %.2f s · whole answer %.2f s",
                    timings.speechToText.seconds, timings.firstWords.seconds, timings.total.seconds
                )))
                return
            }
            Terminal.print(Terminal.dim(String(
                format: "  audio %.2f s · speech-to-text %.2f s · model %.2f s · display %.1f ms · Sibyl's own %.1f ms",
                timings.audioTransfer.seconds, timings.speechToText.seconds, timings.languageModel.seconds,
                timings.display.seconds * 1_000, timings.overhead.seconds * 1_000
            )))
        case .failed(let shown, let detail):
            Terminal.print(Terminal.red("shown in red: ") + shown + Terminal.dim(" (\(detail))"))
        case .cancelled:
            Terminal.print(Terminal.dim("cancelled by the wearer"))
        }
    }

    /// Waits until the device app has said it is ready (`rdy:`), so the first command reaches it.
    func waitUntilReady(timeout: Duration = .seconds(120)) async {
        if await emulator.sentMessages.contains(Self.ready) { return }
        guard await !readies.wait(untilAtLeast: 1, timeout: timeout) else { return }
        Terminal.print(Terminal.yellow("the glasses did not become ready within \(timeout)"))
    }

    /// Reads commands until `quit` or the end of input.
    func readCommands(phone: EmulatorTransport? = nil) async {
        let help = "tap · say FILE.wav · hold [FILE.jpg] · wait [SECONDS] · pause [SECONDS] · screen [--png FILE] · quit" + (phone == nil ? "" : " · send res:TEXT")
        await Terminal.readCommands(help: help) { command, argument in
            switch command {
            case "tap":
                await emulator.tap()
            case "say":
                guard let argument else { throw CLIError("say needs a WAV file: say question.wav") }
                try await emulator.speak(wav: Data(contentsOf: URL(fileURLWithPath: argument)))
                await emulator.tap()
            case "hold":
                if let argument { await emulator.photo(jpeg: try Data(contentsOf: URL(fileURLWithPath: argument))) }
                await emulator.hold()
            case "wait":
                // `wait [SECONDS]`: how long an answer may take (a slow machine's local model needs more).
                await waitForOutcome(timeout: .seconds(Double(argument ?? "180") ?? 180))
            case "pause":
                try await Task.sleep(for: .seconds(Double(argument ?? "1") ?? 1))
            case "screen":
                let words = (argument ?? "").split(separator: " ").map(String.init)
                var png: String?
                if let flag = words.firstIndex(of: "--png") {
                    guard flag + 1 < words.count else { throw CLIError("screen --png needs a file name: screen --png screen.png") }
                    png = words[flag + 1]
                }
                guard let frame = await emulator.screen else {
                    Terminal.print(Terminal.dim("nothing drawn yet"))
                    break
                }
                try GlassesCommand.Screen.show(frame, png: png)
            case "send":
                guard let phone, let argument, let message = AppMessage(packet: Data(argument.utf8)) else {
                    throw CLIError("send needs a message such as res:Hello")
                }
                try await phone.write(message.packet, to: .data)
            default:
                return false
            }
            return true
        }
    }

    /// Waits for the next answer or failure, and for the glasses to show it and be ready again
    /// (a script says `wait` after `say`).
    private func waitForOutcome(timeout: Duration) async {
        guard await outcomes.wait(untilAtLeast: outcomes.count + 1, timeout: timeout) else {
            Terminal.print(Terminal.yellow("no answer within \(timeout)"))
            return
        }
        await readies.wait(untilAtLeast: readies.count + 1, timeout: .seconds(60))
    }

    /// What the device app sends once it is ready for a question.
    static let ready = Data("rdy:".utf8)
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
