import Assistant
import Foundation
import FrameEmulator
import Glasses
import GlassesBluetooth
import GlassesRelay
import MonocleEmulator
import SibylApp
import SibylConfig
import SibylCore

/// Linking glasses of either kind to Sibyl, for `glasses connect`.
enum GlassesLinking {
    /// The paired kind (`glasses.kind`), else Monocle.
    static func pairedKind(_ runtime: SibylRuntime) -> GlassesKind {
        runtime.settings[.glassesKind]
    }

    /// The paired glasses' address, when they are of `kind` (any kind when nil); else a hint to pair.
    static func paired(_ runtime: SibylRuntime, kind: GlassesKind? = nil) throws -> String {
        guard let address = runtime.settings[.glassesDevice], kind == nil || kind == pairedKind(runtime) else {
            throw CLIError(
                kind.map { "No \($0.displayName) is paired yet." } ?? "No glasses are paired yet.",
                hint: "Hold your \(kind?.displayName ?? "Monocle or Frame") near and run: sibyl glasses pair\(kind.map { " --kind \($0)" } ?? "") (or try --emulator)"
            )
        }
        return address
    }

    /// The virtual Monocle, with its display drawn here and the wearer's actions typed.
    static func monocleEmulator(
        _ runtime: SibylRuntime, emulatorOptions: GlassesCommand.EmulatorOptions, options: GlassesSessionOptions, verbose: Bool
    ) async throws {
        let glasses = try emulatorOptions.emulator(runtime: runtime, name: GlassesCommand.Target.emulatorName)
        try await glasses.powerOn()
        let transport = EmulatorTransport(emulator: glasses, maximumWriteLength: emulatorOptions.writeLength)
        let session = try runtime.glasses.session(transport: transport, kind: .monocle, options: options)
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
    static func frameEmulator(_ runtime: SibylRuntime, emulatorOptions: GlassesCommand.EmulatorOptions, options: GlassesSessionOptions) async throws {
        let emulator = try emulatorOptions.frameEmulator(runtime: runtime, name: GlassesCommand.Target.emulatorName)
        try await emulator.powerOn()
        let session = try runtime.glasses.session(transport: EmulatorFrameTransport(emulator: emulator), kind: .frame, options: options)
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
    static func bluetooth(_ runtime: SibylRuntime, kind: GlassesKind, address: String, options: GlassesSessionOptions) async throws {
        let bus = try BluetoothSupport.bus()
        defer { bus.close() }
        let transport = BlueZTransport(bus: bus, address: address, services: BluetoothSupport.services(kind), adapter: BluetoothSupport.adapter(runtime))
        let session = try runtime.glasses.session(transport: transport, kind: kind, options: options)
        Terminal.print("Connecting to the \(kind.displayName) \(address) (type quit to stop)")
        let serving = Task { await session.run { GlassesConsole.describe($0) } }
        await waitForQuit()
        await session.stop()
        serving.cancel()
        await sayWhereSaved(session)
    }

    /// Serves browser pages that carry glasses' bytes (Monocle or Frame, as each page says), one at a
    /// time, until `quit` or the end of input.
    static func relay(_ runtime: SibylRuntime, port: Int, options: GlassesSessionOptions) async throws {
        let server = try await GlassesRelayServer.start(port: port) { transport in
            Terminal.print(Terminal.dim("[relay] a browser connected (\(transport.kind.displayName))"))
            do {
                let session = try runtime.glasses.session(transport: transport, kind: transport.kind, options: options)
                await session.run { GlassesConsole.describe($0) }
            } catch {
                Terminal.report(error)
            }
            Terminal.print(Terminal.dim("[relay] the browser left"))
        }
        Terminal.print("Waiting for a browser at \(server.url) (type quit to stop)")
        await waitForQuit()
        await server.stop()
    }

    static func sayWhereSaved(_ session: GlassesSession) async {
        if let id = await session.conversation {
            Terminal.print(Terminal.dim("saved in conversation \(id.uuidString.lowercased().prefix(8))"))
        }
    }

    /// Waits until `quit` (or `exit`) is typed, or input ends.
    static func waitForQuit() async {
        let lines = Terminal.lines { "" }
        Terminal.requestLine()
        for await line in lines {
            if ["quit", "exit"].contains(line.trimmingCharacters(in: .whitespaces).lowercased()) { break }
            Terminal.requestLine()
        }
    }
}
