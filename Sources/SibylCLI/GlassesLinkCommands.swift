import ArgumentParser
import Assistant
import Foundation
import FrameEmulator
import FrameGlasses
import Monocle
import MonocleBluetooth
import MonocleEmulator
import SibylConfig
import SibylCore
import Synchronization

/// How answers are made on the glasses; the same for `monocle connect` and `glasses connect`.
struct GlassesAnswerOptions: ParsableArguments {
    @Option(name: [.short, .long], help: "Persona for the answers (default: concise, one short sentence).")
    var persona: String?

    @Option(name: .customLong("translate-to"), help: "Translator mode: whatever the wearer says is translated into this language.")
    var translateTo: String?

    @Option(help: "The language the wearer speaks (ISO 639-1, e.g. de), when known.")
    var language: String?

    @OptionGroup var documents: DocumentOptions

    var sessionOptions: GlassesSessionOptions {
        GlassesSessionOptions(persona: persona, translateTo: translateTo, language: language, documents: documents.scope)
    }
}

extension GlassesKind: ExpressibleByArgument {}

/// Linking glasses of either kind to Sibyl, for `monocle connect` and `glasses connect`.
enum GlassesConnection {
    /// The virtual Monocle, with its display drawn here and the wearer's actions typed.
    static func monocleEmulator(_ runtime: SibylRuntime, emulatorOptions: MonocleCommand.EmulatorOptions, options: GlassesSessionOptions, verbose: Bool) async throws {
        let glasses = try emulatorOptions.emulator(runtime: runtime, name: "emulator")
        try await glasses.powerOn()
        let transport = EmulatorTransport(emulator: glasses, maximumWriteLength: emulatorOptions.writeLength)
        let session = try runtime.glassesSession(transport: transport, app: try emulatorOptions.app(), options: options)
        let console = GlassesConsole(emulator: glasses)
        let serving = Task { await session.run { console.report($0) } }
        let watching = Task { await console.watchDisplay(showSerial: verbose) }
        await console.waitUntilReady()
        await console.readCommands()
        await session.stop()
        serving.cancel()
        watching.cancel()
        await glasses.powerOff()
        await sayWhereSaved(session)
    }

    /// The virtual Frame running Sibyl's Frame app; its flash is kept in SIBYL_HOME/frame/emulator.
    static func frameEmulator(_ runtime: SibylRuntime, options: GlassesSessionOptions) async throws {
        let emulator = try FrameEmulator(flash: runtime.paths.home.appendingPathComponent("frame/emulator", isDirectory: true))
        try await emulator.powerOn()
        let session = try runtime.glassesSession(transport: EmulatorFrameTransport(emulator: emulator), options: options)
        let console = FrameConsole(emulator: emulator)
        let serving = Task { await session.run { console.report($0) } }
        let watching = Task { await console.watchDisplay() }
        await console.waitUntilRunning()
        await console.readCommands()
        await session.stop()
        serving.cancel()
        watching.cancel()
        await emulator.powerOff()
        await sayWhereSaved(session)
    }

    /// Real glasses over BlueZ, until `quit` or the end of input.
    static func bluetooth(_ runtime: SibylRuntime, kind: GlassesKind, address: String, app: DeviceApp?, options: GlassesSessionOptions) async throws {
        let bus = try BluetoothSupport.bus()
        defer { bus.close() }
        let adapter = BluetoothSupport.adapter(runtime)
        let session: GlassesSession
        switch kind {
        case .monocle:
            session = try runtime.glassesSession(transport: BlueZTransport(bus: bus, address: address, adapter: adapter), app: app, options: options)
        case .frame:
            session = try runtime.glassesSession(transport: FrameBlueZTransport(bus: bus, address: address, adapter: adapter), options: options)
        }
        Terminal.print("Connecting to the \(kind.displayName) \(address) (type quit to stop)")
        let serving = Task { await session.run { GlassesConsole.describe($0) } }
        await MonocleCommand.Connect.waitForQuit()
        await session.stop()
        serving.cancel()
        await sayWhereSaved(session)
    }

    static func sayWhereSaved(_ session: GlassesSession) async {
        if let id = await session.conversation {
            Terminal.print(Terminal.dim("saved in conversation \(id.uuidString.lowercased().prefix(8))"))
        }
    }

    /// The paired glasses: their kind and address, or a hint to pair.
    static func paired(_ runtime: SibylRuntime) throws -> (kind: GlassesKind, address: String) {
        guard let address = runtime.settings[.glassesDevice] else {
            throw CLIError("No glasses are paired yet.", hint: "Hold your Monocle or Frame near and run: sibyl glasses pair (or try --emulator)")
        }
        return (runtime.settings[.glassesKind], address)
    }
}

extension GlassesCommand {
    /// `sibyl glasses scan`.
    struct Scan: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the Monocle and Frame glasses in reach, nearest first.")
        @OptionGroup var global: GlobalOptions
        @Option(help: "How long to look, in seconds.") var seconds = 5.0

        func run() async throws {
            try await global.withRuntime { runtime in
                let bus = try BluetoothSupport.bus()
                defer { bus.close() }
                let found = try await BlueZScanner(bus: bus, adapter: BluetoothSupport.adapter(runtime)).scanGlasses(for: .seconds(seconds))
                guard !found.isEmpty else {
                    Terminal.print("No glasses in reach. Are they on (Frame: out of its case, Monocle: lid open)?")
                    return
                }
                for glasses in found {
                    let signal = glasses.rssi.map { "\($0) dBm" } ?? "?"
                    Terminal.print("\(glasses.kind.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)) \(glasses.address)  \(glasses.name.padding(toLength: 12, withPad: " ", startingAt: 0)) \(signal)\(glasses.paired ? "  bonded" : "")")
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
        @Option(help: "How long to look, in seconds.") var seconds = 10.0

        func run() async throws {
            try await global.withRuntime { runtime in
                try await BluetoothSupport.pairNearest(runtime, seconds: seconds)
            }
        }
    }

    /// `sibyl glasses connect`.
    struct Connect: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Connect to the paired glasses (Monocle or Frame), keep Sibyl's app on them, and answer what the wearer asks.",
            discussion: """
            On Frame: tap to speak and tap again to stop; double-tap to take a photo and then ask about it; a tap \
            while Sibyl thinks cancels. With --emulator, the virtual glasses' display is drawn here and these \
            commands act for the wearer: tap, double (Frame), say FILE.wav, photo FILE.jpg (Frame), hold (Monocle), \
            wait, pause, screen, quit. Answers are saved in a conversation with source glasses.
            """
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup var answers: GlassesAnswerOptions
        @OptionGroup var emulatorOptions: MonocleCommand.EmulatorOptions

        @Flag(help: "Use virtual glasses instead of Bluetooth.")
        var emulator = false

        @Option(help: "With --emulator: monocle or frame (default: the paired kind, else monocle).")
        var kind: GlassesKind?

        func run() async throws {
            try await global.withRuntime { runtime in
                if emulator {
                    let kind = kind ?? runtime.settings[.glassesKind]
                    switch kind {
                    case .monocle:
                        try await GlassesConnection.monocleEmulator(runtime, emulatorOptions: emulatorOptions, options: answers.sessionOptions, verbose: global.verbose)
                    case .frame:
                        try await GlassesConnection.frameEmulator(runtime, options: answers.sessionOptions)
                    }
                    return
                }
                let paired = try GlassesConnection.paired(runtime)
                try await GlassesConnection.bluetooth(runtime, kind: paired.kind, address: paired.address, app: try emulatorOptions.app(), options: answers.sessionOptions)
            }
        }
    }
}
