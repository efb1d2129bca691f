import ArgumentParser
import Assistant
import Foundation
import FrameEmulator
import Glasses
import GlassesBluetooth
import GlassesRelay
import MonocleEmulator
import SibylApp
import SibylCore
import Synchronization

extension GlassesCommand {
    /// `sibyl glasses captions`: live captions on the glasses.
    struct Captions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Live captions: the glasses listen on and on and show what is said around you as it is said.",
            discussion: """
            The last lines show on the glasses, the one being spoken growing word by word; a tap pauses and \
            resumes. With --translate-to, each line is shown translated (English straight from Whisper, other \
            languages through the chat model). The transcript is kept in a conversation with source captions \
            (see `sibyl conversations list --source captions`). With --emulator, these commands act for the \
            wearer's surroundings: say FILE.wav (spoken at its real pace from now on), tap, wait (until what \
            was said is captioned), pause [SECONDS], screen, quit. Examples:
              sibyl glasses captions
              sibyl glasses captions --translate-to en
              sibyl glasses captions --emulator --kind frame
            """
        )

        @OptionGroup var global: GlobalOptions

        @Option(name: .customLong("translate-to"), help: "Show the captions translated into this language (ISO 639-1, e.g. en).")
        var translateTo: String?

        @Option(help: "The language spoken around you (ISO 639-1, e.g. de), when known; else glasses.language, else detected.")
        var language: String?

        @OptionGroup var reach: Reach

        func run() async throws {
            try await global.withRuntime { runtime in
                let options = CaptionOptions(translateTo: translateTo, language: language, languageHint: Terminal.language)
                let kind = reach.kind ?? GlassesLinking.pairedKind(runtime)
                if reach.relay {
                    try await CaptionsLinking.relay(runtime, port: reach.port, options: options)
                } else if reach.emulator {
                    try await CaptionsLinking.emulated(runtime, kind: kind, emulatorOptions: reach.emulatorOptions, options: options)
                } else {
                    let address = try GlassesLinking.paired(runtime, kind: reach.kind)
                    try await CaptionsLinking.bluetooth(runtime, kind: kind, address: address, options: options)
                }
            }
        }
    }
}

/// Linking glasses to live captions, for `glasses captions`.
enum CaptionsLinking {
    /// Virtual glasses whose microphone hears what `say` plays, at its real pace.
    static func emulated(_ runtime: SibylRuntime, kind: GlassesKind, emulatorOptions: GlassesCommand.EmulatorOptions, options: CaptionOptions) async throws {
        let surroundings: CaptionsConsole.Surroundings
        let transport: any GlassesTransport
        var monocle: MonocleEmulator?
        var frame: FrameEmulator?
        switch kind {
        case .monocle:
            var live = emulatorOptions
            live.realTimeMicrophone = true
            let glasses = try live.emulator(runtime: runtime, name: GlassesCommand.Target.emulatorName, continuousMicrophone: true)
            try await glasses.powerOn()
            transport = EmulatorTransport(emulator: glasses, maximumWriteLength: emulatorOptions.writeLength)
            surroundings = .monocle(glasses)
            monocle = glasses
        case .frame:
            let glasses = try emulatorOptions.frameEmulator(runtime: runtime, name: GlassesCommand.Target.emulatorName)
            try await glasses.powerOn()
            transport = EmulatorFrameTransport(emulator: glasses)
            surroundings = .frame(glasses)
            frame = glasses
        }
        let session = try runtime.glasses.captions(transport: transport, kind: kind, options: options)
        let console = CaptionsConsole(surroundings: surroundings)
        let serving = Task { await session.run { console.report($0) } }
        await console.waitUntilCaptioning()
        await console.readCommands()
        await session.stop()
        serving.cancel()
        await monocle?.powerOff()
        await frame?.powerOff()
        await sayWhereKept(session)
    }

    /// Real glasses over BlueZ, until `quit` or the end of input.
    static func bluetooth(_ runtime: SibylRuntime, kind: GlassesKind, address: String, options: CaptionOptions) async throws {
        let bus = try BluetoothSupport.bus()
        defer { bus.close() }
        let transport = BlueZTransport(bus: bus, address: address, services: BluetoothSupport.services(kind), adapter: BluetoothSupport.adapter(runtime))
        let session = try runtime.glasses.captions(transport: transport, kind: kind, options: options)
        Terminal.print("Connecting to the \(kind.displayName) \(address) for live captions (type quit to stop)")
        let serving = Task { await session.run { CaptionsConsole.describe($0) } }
        await GlassesLinking.waitForQuit()
        await session.stop()
        serving.cancel()
        await sayWhereKept(session)
    }

    /// Browser pages that carry glasses' bytes, one at a time, until `quit` or the end of input.
    static func relay(_ runtime: SibylRuntime, port: Int, options: CaptionOptions) async throws {
        let server = try await GlassesRelayServer.start(port: port) { transport in
            Terminal.print(Terminal.dim("[relay] a browser connected (\(transport.kind.displayName))"))
            do {
                let session = try runtime.glasses.captions(transport: transport, kind: transport.kind, options: options)
                await session.run { CaptionsConsole.describe($0) }
                await sayWhereKept(session)
            } catch {
                Terminal.report(error)
            }
            Terminal.print(Terminal.dim("[relay] the browser left"))
        }
        Terminal.print("Waiting for a browser at \(server.url) (type quit to stop)")
        await GlassesLinking.waitForQuit()
        await server.stop()
    }

    static func sayWhereKept(_ session: GlassesCaptionsSession) async {
        if let id = await session.conversation {
            Terminal.print(Terminal.dim("the transcript is in conversation \(id.uuidString.lowercased().prefix(8)) (sibyl conversations show \(id.uuidString.lowercased().prefix(8)))"))
        }
    }
}

/// The terminal side of captions on virtual glasses: the lines as they come, and the surroundings' speech.
final class CaptionsConsole: Sendable {
    enum Surroundings: Sendable {
        case monocle(MonocleEmulator)
        case frame(FrameEmulator)
    }

    let surroundings: Surroundings
    private let started = EventCounter()
    private let lines = EventCounter()
    /// Whether a line is being spoken (partial words shown, not finished yet).
    private let forming = Mutex(false)

    init(surroundings: Surroundings) {
        self.surroundings = surroundings
    }

    func report(_ event: GlassesCaptions.Event) {
        Self.describe(event)
        switch event {
        case .state(let state) where state.isRunning: started.increment()
        case .partial: forming.withLock { $0 = true }
        case .line:
            forming.withLock { $0 = false }
            lines.increment()
        default: break
        }
    }

    static func describe(_ event: GlassesCaptions.Event) {
        switch event {
        case .state(let state):
            Terminal.print(Terminal.dim("[\(state.kind): \(state)]"))
        case .notice(let text):
            Terminal.print(Terminal.yellow("[glasses] \(text)"))
        case .partial(let words):
            Terminal.print(Terminal.dim("… \(words)"))
        case .line(let line, let translation):
            Terminal.print(Terminal.bold("caption: ") + line + (translation.map { Terminal.green("  → \($0)") } ?? ""))
        case .paused(let paused):
            Terminal.print(Terminal.dim(paused ? "paused by a tap" : "resumed by a tap"))
        case .trouble(let text):
            Terminal.print(Terminal.yellow("[captions] \(text)"))
        }
    }

    /// Waits until the glasses run Sibyl's app (captions start then).
    func waitUntilCaptioning(timeout: Duration = .seconds(120)) async {
        guard await !started.wait(untilAtLeast: 1, timeout: timeout) else { return }
        Terminal.print(Terminal.yellow("the glasses did not become ready within \(timeout)"))
    }

    static let help = "say FILE.wav · tap · wait · pause [SECONDS] · screen · quit"

    func readCommands() async {
        var spokenUntil = ContinuousClock.now
        await Terminal.readCommands(help: Self.help) { command, argument in
            switch command {
            case "say":
                guard let argument else { throw CLIError("say needs a WAV file: say talk.wav") }
                let wav = try Data(contentsOf: URL(fileURLWithPath: argument))
                let samples = try AudioResampling.speechPCM16(fromWAV: wav)
                switch surroundings {
                case .monocle(let glasses): try await glasses.speak(wav: wav)
                case .frame(let glasses): glasses.setMicrophoneInput(samples: samples, sampleRate: AudioResampling.speechSampleRate, fromNow: true)
                }
                let seconds = Double(samples.count) / Double(AudioResampling.speechSampleRate)
                spokenUntil = .now + .seconds(seconds)
                Terminal.print(Terminal.dim(String(format: "the glasses hear %.1f s of speech from now on", seconds)))
            case "tap":
                switch surroundings {
                case .monocle(let glasses): await glasses.tap()
                case .frame(let glasses): try await glasses.tap()
                }
            case "wait":
                // Until what was said has been spoken (it plays at its real pace), then until the
                // line being spoken is finished.
                try await Task.sleep(until: spokenUntil, clock: .continuous)
                let deadline = ContinuousClock.now + .seconds(60)
                while forming.withLock({ $0 }), ContinuousClock.now < deadline {
                    await lines.wait(untilAtLeast: lines.count + 1, timeout: .seconds(1))
                }
            case "pause":
                try await Task.sleep(for: .seconds(Double(argument ?? "1") ?? 1))
            case "screen":
                switch surroundings {
                case .monocle(let glasses):
                    guard let frame = await glasses.screen else { Terminal.print(Terminal.dim("nothing drawn yet")); break }
                    try GlassesCommand.Screen.show(frame, png: nil)
                case .frame(let glasses):
                    Terminal.print(FrameConsole.render(glasses.display.current?.texts ?? []))
                }
            default:
                return false
            }
            return true
        }
    }
}
