import ArgumentParser
import Assistant
import Foundation
import Glasses
import GlassesBluetooth
import SibylApp
import SibylConfig
import SibylCore

/// How answers are made on the glasses.
struct GlassesAnswerOptions: ParsableArguments {
    @Option(name: [.short, .long], help: "Persona for the answers (default: concise, one short sentence).")
    var persona: String?

    @Option(name: .customLong("translate-to"), help: "Translator mode: whatever the wearer says is translated into this language.")
    var translateTo: String?

    @Option(help: "The language the wearer speaks (ISO 639-1, e.g. de), when known.")
    var language: String?

    @OptionGroup var documents: DocumentOptions

    var sessionOptions: GlassesSessionOptions {
        var options = GlassesSessionOptions(persona: persona, translateTo: translateTo, language: language, documents: documents.scope)
        options.languageHint = Terminal.language
        return options
    }
}

extension GlassesCommand {
    /// `sibyl glasses scan`.
    struct Scan: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the Monocle and Frame glasses in reach, nearest first (Bluetooth, BlueZ).")
        @OptionGroup var global: GlobalOptions
        @Option(help: "Only glasses of this kind: monocle or frame.") var kind: GlassesKind?
        @Option(help: "How long to look, in seconds.") var seconds = 5.0

        func run() async throws {
            try await global.withRuntime { runtime in
                let bus = try BluetoothSupport.bus()
                defer { bus.close() }
                let services = kind.map { [BluetoothSupport.services($0)] } ?? BluetoothSupport.allServices
                let found = try await BlueZScanner(bus: bus, adapter: BluetoothSupport.adapter(runtime)).scan(for: .seconds(seconds), services: services)
                guard !found.isEmpty else {
                    Terminal.print("No \(kind?.displayName ?? "glasses") in reach. Are they on (Frame: out of its case, Monocle: lid open)?")
                    return
                }
                let paired = runtime.settings[.glassesDevice]?.uppercased()
                for glasses in found {
                    let signal = glasses.rssi.map { "\($0) dBm" } ?? "? dBm"
                    let marks = (glasses.paired ? "  bonded" : "") + (glasses.address.uppercased() == paired ? "  (paired)" : "")
                    Terminal.print("\(glasses.kind.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)) \(glasses.address)  \(glasses.name.padding(toLength: 12, withPad: " ", startingAt: 0)) \(signal)\(marks)")
                }
            }
        }
    }

    /// `sibyl glasses pair`.
    struct Pair: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remember the glasses held closest (stronger than −65 dBm), Monocle or Frame, as yours.",
            discussion: """
            The address and kind are kept in the config (glasses.device, glasses.kind). A Frame is bonded through \
            BlueZ when Sibyl first connects to it (Frame keeps one bond at a time); a Monocle needs no bonding.
            """
        )
        @OptionGroup var global: GlobalOptions
        @Option(help: "Only glasses of this kind: monocle or frame.") var kind: GlassesKind?
        @Option(help: "How long to look, in seconds.") var seconds = 10.0

        func run() async throws {
            try await global.withRuntime { runtime in
                try await BluetoothSupport.pairNearest(runtime, seconds: seconds, only: kind)
            }
        }
    }

    /// `sibyl glasses unpair`.
    struct Unpair: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Forget the paired glasses.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.withRuntime { runtime in
                let previous = runtime.settings[.glassesDevice]
                let kind = GlassesLinking.pairedKind(runtime)
                try await runtime.admin.unset(.glassesDevice)
                try await runtime.admin.unset(.glassesKind)
                Terminal.print(previous.map { "Forgot the \(kind.displayName) \($0)." } ?? "No glasses were paired.")
            }
        }
    }

    /// `sibyl glasses connect`.
    struct Connect: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Connect to the glasses (Monocle or Frame), keep Sibyl's app on them, and answer what the wearer asks.",
            discussion: """
            Monocle: tap to speak, hold for a photo question. Frame: tap to speak and tap again to stop; double-tap to \
            take a photo and then ask about it; a tap while Sibyl thinks cancels. With --emulator, the virtual glasses' \
            display is drawn here and these commands act for the wearer: tap, double (Frame), say FILE.wav, photo \
            FILE.jpg (Frame), hold [FILE.jpg] (Monocle), wait, pause [SECONDS], screen, quit. With --relay, Sibyl waits \
            for a Web Bluetooth page to carry real glasses' bytes over a WebSocket (ws://127.0.0.1:PORT/monocle), Monocle \
            or Frame as the page says. Answers are saved in a conversation with source glasses (see \
            `sibyl conversations list --source glasses`).
            """
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup var answers: GlassesAnswerOptions
        @OptionGroup var reach: Reach

        func run() async throws {
            try await global.withRuntime { runtime in
                var options = answers.sessionOptions
                let emulatorOptions = reach.emulatorOptions
                if emulatorOptions.scripts != nil { options.monocleApp = try emulatorOptions.app() }
                if reach.relay {
                    try await GlassesLinking.relay(runtime, port: reach.port, options: options)
                } else if reach.emulator {
                    switch reach.kind ?? GlassesLinking.pairedKind(runtime) {
                    case .monocle:
                        try await GlassesLinking.monocleEmulator(runtime, emulatorOptions: emulatorOptions, options: options, verbose: global.verbose)
                    case .frame:
                        try await GlassesLinking.frameEmulator(runtime, emulatorOptions: emulatorOptions, options: options)
                    }
                } else {
                    let address = try GlassesLinking.paired(runtime, kind: reach.kind)
                    try await GlassesLinking.bluetooth(runtime, kind: reach.kind ?? GlassesLinking.pairedKind(runtime), address: address, options: options)
                }
            }
        }
    }

    /// How `connect` and `captions` reach the glasses: the paired ones over Bluetooth, the virtual
    /// ones (`--emulator`), or real ones a browser page carries (`--relay`).
    struct Reach: ParsableArguments {
        @OptionGroup var emulatorOptions: EmulatorOptions

        @Flag(help: "Use virtual glasses instead of Bluetooth.")
        var emulator = false

        @Flag(help: "Let a browser page with Web Bluetooth carry the bytes: Sibyl listens for it on a WebSocket.")
        var relay = false

        @Option(help: "With --relay: the port to listen on (loopback).")
        var port = 8765

        @Option(help: "monocle or frame (default: the paired kind, else monocle).")
        var kind: GlassesKind?

        func validate() throws {
            if emulator && relay { throw ValidationError("--emulator and --relay are two ways to reach glasses: give one.") }
        }
    }
}
