import ArgumentParser
import Assistant
import Foundation
import LocalEngines
import Monocle
import MonocleEmulator
import MonocleBluetooth
import MonocleRelay
import SibylConfig
import SibylCore
import Synchronization

/// `sibyl monocle`: Brilliant Labs Monocle glasses.
struct MonocleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monocle",
        abstract: "Ask by voice through Monocle AR glasses and read the answer in them.",
        discussion: """
        `connect --emulator` runs Sibyl against a virtual Monocle (the device app under the real MicroPython \
        interpreter); `connect --relay` waits for a Web Bluetooth page to carry real glasses' bytes over a WebSocket; \
        `emulate` runs any device app on the virtual glasses on its own; `scan`, `pair` and plain `connect` use \
        real glasses over Bluetooth (BlueZ). With the emulator, the glasses' display is \
        drawn in the terminal and these commands act for the wearer: tap, say FILE.wav, hold [FILE.jpg], wait, \
        pause [SECONDS], screen, quit.
        """,
        subcommands: [Scan.self, Pair.self, Unpair.self, Connect.self, Update.self, Emulate.self]
    )

    struct EmulatorOptions: ParsableArguments {
        @Option(help: "Run this directory's device scripts (with a main.py) instead of Sibyl's own app.")
        var scripts: String?

        @Option(name: .customLong("write-length"), help: "The link's largest write in bytes (ATT MTU − 3).")
        var writeLength = 253

        @Option(name: .customLong("emulated-firmware"), help: "Firmware version the virtual glasses report (an older one exercises `update --firmware`).")
        var emulatedFirmware = "v23.248.0754"

        @Option(name: .customLong("emulated-bootloader-key"), help: "The public key (PEM) the virtual glasses' bootloader trusts; without it, it takes any signature.")
        var emulatedBootloaderKey: String?

        @Flag(name: .customLong("real-time-microphone"), help: "Deliver microphone samples at their real rate.")
        var realTimeMicrophone = false

        @Option(name: .customLong("data-queue"), help: ArgumentHelp(
            "Make the virtual link busy like a real one: it holds N notifications (the firmware's queue holds 2), and bluetooth.send raises OSError 'raw data service is busy' while they wait.",
            valueName: "N"
        ))
        var dataQueue: Int?

        @Option(name: .customLong("connection-interval"), help: ArgumentHelp("With --data-queue: milliseconds between the link's connection events, which empty the queue.", valueName: "MS"))
        var connectionInterval = 15

        @Option(name: .customLong("emulated-fpga"), help: "FPGA version the virtual glasses report (an older one exercises `update --fpga`).")
        var emulatedFPGA = "v23.230.0808"

        /// The FPGA version the virtual glasses report after a complete update (set by `update`).
        var emulatedFPGAAfterUpdate: String?

        func validate() throws {
            if let dataQueue, dataQueue < 1 {
                throw ValidationError("--data-queue needs at least 1 notification (the real glasses hold 2).")
            }
            guard connectionInterval >= 1 else {
                throw ValidationError("--connection-interval needs at least 1 millisecond (the real glasses use 15).")
            }
        }

        func app() throws -> DeviceApp {
            guard let scripts else { return try DeviceApp.sibyl() }
            return try DeviceApp(directory: URL(fileURLWithPath: scripts))
        }

        func emulator(runtime: SibylRuntime, name: String) throws -> MonocleEmulator {
            let module = runtime.local.layout.microPythonModule
            guard FileManager.default.fileExists(atPath: module.path) else {
                throw CLIError("The Monocle emulator's MicroPython interpreter is not installed.", hint: "Run: sibyl models install emulator")
            }
            var configuration = EmulatorConfiguration(interpreter: MicroPythonInterpreter(module: module))
            configuration.maximumWriteLength = writeLength
            configuration.firmware = emulatedFirmware
            if let emulatedBootloaderKey {
                do {
                    try configuration.bootloader.trust(publicKeyPEM: String(contentsOfFile: emulatedBootloaderKey, encoding: .utf8))
                } catch {
                    throw CLIError("Cannot read the public key \(emulatedBootloaderKey) (a PEM file): \(error.localizedDescription)")
                }
            }
            configuration.realTimeMicrophone = realTimeMicrophone
            configuration.dataQueue = dataQueue.map { DataQueue(capacity: $0, interval: .milliseconds(connectionInterval)) }
            configuration.fpga = emulatedFPGA
            configuration.fpgaAfterUpdate = emulatedFPGAAfterUpdate
            let filesystem = runtime.paths.home.appendingPathComponent("monocle/\(name)", isDirectory: true)
            return MonocleEmulator(configuration: configuration, filesystem: filesystem)
        }
    }

    /// `sibyl monocle connect --emulator`.
    struct Connect: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Connect to the glasses, keep their app up to date, and answer what the wearer asks.",
            discussion: "Answers are saved in a conversation with source glasses (see `sibyl conversations list --source glasses`)."
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup var emulatorOptions: EmulatorOptions

        @Flag(help: "Use the virtual Monocle instead of Bluetooth.")
        var emulator = false

        @Flag(help: "Let a browser page with Web Bluetooth carry the bytes: Sibyl listens for it on a WebSocket.")
        var relay = false

        @Option(help: "With --relay: the port to listen on (loopback).")
        var port = 8765

        @OptionGroup var answers: GlassesAnswerOptions

        /// How the session answers: these options over the settings.
        var sessionOptions: GlassesSessionOptions { answers.sessionOptions }

        func run() async throws {
            try await global.withRuntime { runtime in
                if relay {
                    try await runRelay(runtime)
                } else if emulator {
                    try await runEmulator(runtime)
                } else {
                    try await runBluetooth(runtime)
                }
            }
        }

        /// The virtual Monocle, with its display drawn here and the wearer's actions typed.
        func runEmulator(_ runtime: SibylRuntime) async throws {
            try await GlassesConnection.monocleEmulator(runtime, emulatorOptions: emulatorOptions, options: sessionOptions, verbose: global.verbose)
        }
    }

    /// `sibyl monocle update`.
    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check the glasses' firmware and FPGA versions, and install new firmware or a new FPGA image.",
            discussion: """
            --firmware takes a Nordic DFU package (the zip Brilliant Labs publishes, made by `nrfutil pkg generate`). \
            It is checked first (its image against the init packet's size and SHA-256); when the glasses report another \
            version, they restart into their bootloader (DfuTarg) and the image is sent by Secure DFU: every object is \
            checked by CRC-32, a damaged one is sent again, and a lost link resumes where it stopped. With --fpga, the \
            image is written in base64 chunks sized to the link and a failed chunk is sent again. The glasses then restart, \
            and Sibyl's app is checked and uploaded as on every connection. Examples:
              sibyl monocle update --firmware monocle-micropython-v23.248.0754.zip
              sibyl monocle update --emulator --emulated-fpga v23.179.1006 --fpga monocle-fpga.bin --fpga-version v23.230.0808
            """
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup var emulatorOptions: EmulatorOptions

        @Flag(help: "Use the virtual Monocle instead of Bluetooth.")
        var emulator = false

        @Option(help: "A firmware package (.zip) to install when the glasses report another version.")
        var firmware: String?

        @Option(name: .customLong("firmware-version"), help: "The version the package's firmware reports (read from the image when not given).")
        var firmwareVersion: String?

        @Option(help: "An FPGA image (.bin) to write when the glasses report another version.")
        var fpga: String?

        @Option(name: .customLong("fpga-version"), help: "The version the FPGA image reports, e.g. v23.230.0808.")
        var fpgaVersion: String?

        func validate() throws {
            if fpga != nil {
                guard let fpgaVersion, RawREPL.version(in: fpgaVersion) == fpgaVersion else {
                    throw ValidationError("--fpga needs --fpga-version with the image's version, such as v23.230.0808.")
                }
            }
            if let firmwareVersion, DFUPackage.embeddedVersion(in: Data(firmwareVersion.utf8)) != firmwareVersion {
                throw ValidationError("--firmware-version takes a version such as v23.248.0754.")
            }
        }

        func run() async throws {
            try await global.withRuntime { runtime in try await install(runtime) }
        }

        /// The update itself (also what `sibyl glasses update` runs for a paired Monocle).
        func install(_ runtime: SibylRuntime) async throws {
            var options = MonocleController.Options()
            let package = try firmware.map(loadPackage)
            options.firmwarePackage = package
            if let fpga, let fpgaVersion {
                guard let data = FileManager.default.contents(atPath: fpga), !data.isEmpty else {
                    throw CLIError("Cannot read the FPGA image \(fpga).")
                }
                options.fpgaImage = FPGAImage(data: data, version: fpgaVersion)
            }
            let links = try await connectLinks(runtime)
            defer { links.close() }
            options.bootloader = links.bootloader
            let controller = MonocleController(transport: links.glasses, app: try emulatorOptions.app(), options: options)
            let serving = Task { await controller.run() }
            let outcome = await follow(controller, package: package, image: options.fpgaImage)
            await controller.stop()
            serving.cancel()
            await links.powerOff()
            let info = try outcome.get()
            Terminal.print("firmware \(info.firmware ?? "unknown") · FPGA \(info.fpga ?? "unknown") · app \(info.uploaded ? "uploaded" : "up to date")")
            if let expected = MonocleController.Options().expectedFirmware, info.firmware != expected, package == nil {
                Terminal.print(Terminal.yellow("Sibyl's app is written for firmware \(expected); install it with --firmware PACKAGE.zip."))
            }
            if let package, info.firmware != package.version {
                throw CLIError("The glasses still report firmware \(info.firmware ?? "of no version") instead of \(package.version ?? "?").")
            }
            if let fpgaVersion, info.fpga != fpgaVersion {
                throw CLIError("The FPGA still reports \(info.fpga ?? "no version") instead of \(fpgaVersion).")
            }
        }

        /// Reads and checks the package before anything is sent.
        func loadPackage(_ path: String) throws -> DFUPackage {
            try Self.loadPackage(path, version: firmwareVersion)
        }

        /// Reads and checks a package; `version` overrides the one found in the image.
        static func loadPackage(_ path: String, version firmwareVersion: String?) throws -> DFUPackage {
            let package: DFUPackage
            do {
                package = try DFUPackage(contentsOf: URL(fileURLWithPath: path), version: firmwareVersion)
            } catch {
                throw CLIError(error.localizedDescription)
            }
            guard let version = package.version else {
                throw CLIError("Cannot tell which firmware version \(path) holds.", hint: "Give it with --firmware-version (such as v23.248.0754).")
            }
            let signed = package.info.signature == nil ? "unsigned" : "signed"
            Terminal.print("Firmware package: \(version), \(package.firmware.count) bytes, hardware \(package.info.hardwareVersion), \(signed)")
            return package
        }

        /// The glasses' link and their bootloader's: the emulator's, or the paired Monocle's over BlueZ.
        func connectLinks(_ runtime: SibylRuntime) async throws -> UpdateLinks {
            if emulator {
                var virtualGlasses = emulatorOptions
                if fpgaVersion != nil { virtualGlasses.emulatedFPGAAfterUpdate = fpgaVersion }
                let glasses = try virtualGlasses.emulator(runtime: runtime, name: "emulator")
                try await glasses.powerOn()
                return UpdateLinks(
                    glasses: EmulatorTransport(emulator: glasses, maximumWriteLength: emulatorOptions.writeLength),
                    bootloader: EmulatorDFUTransport(emulator: glasses),
                    powerOff: { await glasses.powerOff() }, close: {}
                )
            }
            guard let address = runtime.settings[.glassesDevice] else {
                throw CLIError("No Monocle is paired yet.", hint: "Hold your Monocle near and run: sibyl monocle pair (or try --emulator)")
            }
            let bus = try BluetoothSupport.bus()
            let adapter = BluetoothSupport.adapter(runtime)
            Terminal.print("Connecting to the Monocle \(address)…")
            return UpdateLinks(
                glasses: BlueZTransport(bus: bus, address: address, adapter: adapter),
                bootloader: BlueZDFUTransport(bus: bus, adapter: adapter),
                powerOff: {}, close: { bus.close() }
            )
        }

        /// Shows the update's progress until the app runs on the glasses, or an update fails.
        func follow(_ controller: MonocleController, package: DFUPackage?, image: FPGAImage?) async -> Result<DeviceInfo, CLIError> {
            let progress = ProgressDisplay()
            var updating: String?
            for await event in controller.events {
                switch event {
                case .state(.updatingFirmware(let fraction)):
                    if updating == nil {
                        updating = "firmware"
                        progress.observer(.step("Installing firmware \(package?.version ?? "") (\(package?.firmware.count ?? 0) bytes) through the bootloader"))
                    }
                    progress.observer(.progress(fraction, detail: ""))
                case .state(.updatingFPGA(let fraction)):
                    if updating == nil {
                        updating = "FPGA image"
                        progress.observer(.step("Writing the FPGA image (\(image?.data.count ?? 0) bytes)"))
                    }
                    progress.observer(.progress(fraction, detail: ""))
                case .state(.running(let info)):
                    progress.finish()
                    return .success(info)
                case .state(let state):
                    if let what = updating, case .disconnected = state {
                        progress.observer(.finished("\(what.prefix(1).uppercased() + what.dropFirst()) installed; the glasses restart"))
                        updating = nil
                    }
                case .notice(let text):
                    progress.finish()
                    Terminal.error(Terminal.yellow("[monocle] \(text)", stderr: true))
                case .updateFailed(let reason):
                    progress.finish()
                    return .failure(CLIError("The firmware update failed: \(reason)",
                                             hint: "The glasses stay in their bootloader (DfuTarg) until they are updated or restarted; run the update again."))
                case .message:
                    break
                }
            }
            progress.finish()
            return .failure(CLIError("The glasses did not come back after the update."))
        }
    }

    /// What `update` talks to.
    struct UpdateLinks {
        var glasses: any MonocleTransport
        var bootloader: any DFUTransport
        var powerOff: @Sendable () async -> Void
        var close: @Sendable () -> Void
    }

    /// `sibyl monocle emulate`.
    struct Emulate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run a device app on the virtual Monocle, without Sibyl behind it.",
            discussion: """
            The app is written to the virtual glasses and started; what it draws, prints and sends appears here. \
            Besides tap, say, hold, wait, screen and quit: `send res:TEXT` sends a data message to the app.

            With --listen PORT the glasses are offered instead to another program, as a Web Bluetooth page \
            would offer real ones: a WebSocket at ws://127.0.0.1:PORT/monocle speaking the relay's messages \
            (binary frames: 1 = serial, 2 = data, then the bytes; text frames: JSON connected/disconnected, and \
            connect/disconnect from the peer). The connecting program is the phone: it installs its own app, \
            as Sibyl does. PORT 0 picks a free port.
            """
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup var emulatorOptions: EmulatorOptions

        @Option(help: "Offer the virtual glasses over a WebSocket on this loopback port instead of running the app here.")
        var listen: Int?

        func validate() throws {
            if let listen, !(0...65_535).contains(listen) {
                throw ValidationError("--listen needs a port between 0 and 65535.")
            }
        }

        func run() async throws {
            try await global.withRuntime { runtime in
                if let listen {
                    try await offer(runtime: runtime, port: listen)
                    return
                }
                let app = try emulatorOptions.app()
                let glasses = try emulatorOptions.emulator(runtime: runtime, name: "emulate")
                // Written straight to the filesystem, as the author wrote them: no version line on top
                // (no phone checks it here), so a traceback's line numbers are those of the author's files.
                try FileManager.default.createDirectory(at: glasses.filesystem, withIntermediateDirectories: true)
                for file in app.files {
                    try Data(file.contents.utf8).write(to: glasses.filesystem.appendingPathComponent(file.name))
                }
                try await glasses.powerOn()
                let console = GlassesConsole(emulator: glasses)
                let phone = EmulatorTransport(emulator: glasses, maximumWriteLength: emulatorOptions.writeLength)
                try await phone.connect()
                let watching = Task { await console.watchDisplay(showMessages: true, showSerial: true) }
                await console.readCommands(phone: phone)
                watching.cancel()
                await glasses.powerOff()
            }
        }

        /// `--listen`: the glasses wait for a program to connect and carry their bytes.
        private func offer(runtime: SibylRuntime, port: Int) async throws {
            let glasses = try emulatorOptions.emulator(runtime: runtime, name: "emulate")
            try await glasses.powerOn()
            let console = GlassesConsole(emulator: glasses)
            let link = EmulatorTransport(emulator: glasses, maximumWriteLength: emulatorOptions.writeLength)
            let server: RelayGlassesServer
            do {
                server = try await RelayGlassesServer.start(glasses: link, port: port)
            } catch {
                await glasses.powerOff()
                throw CLIError("Cannot offer the virtual glasses on port \(port): \(error.localizedDescription)", hint: "Pick another port, or 0 for a free one.")
            }
            Terminal.print("The virtual glasses wait at \(server.url)")
            let watching = Task { await console.watchDisplay(showMessages: true, showSerial: true) }
            await console.readCommands()
            watching.cancel()
            await server.stop()
            await glasses.powerOff()
        }
    }
}


extension MonocleCommand.Connect {
    /// Serves browser pages that carry the glasses' bytes, one at a time, until `quit` or the end of input.
    func runRelay(_ runtime: SibylRuntime) async throws {
        let app = try emulatorOptions.app()
        let options = sessionOptions
        let server = try await MonocleRelayServer.start(port: port) { transport in
            Terminal.print(Terminal.dim("[relay] a browser connected"))
            do {
                let session = try runtime.glassesSession(transport: transport, app: app, options: options)
                await session.run { GlassesConsole.describe($0) }
            } catch {
                Terminal.report(error)
            }
            Terminal.print(Terminal.dim("[relay] the browser left"))
        }
        Terminal.print("Waiting for a browser at \(server.url) (type quit to stop)")
        await Self.waitForQuit()
        await server.stop()
    }

    /// Real glasses over BlueZ: the paired Monocle, until `quit` or the end of input.
    func runBluetooth(_ runtime: SibylRuntime) async throws {
        guard let address = runtime.settings[.glassesDevice] else {
            throw CLIError("No Monocle is paired yet.", hint: "Hold your Monocle near and run: sibyl monocle pair (or try --emulator)")
        }
        try await GlassesConnection.bluetooth(runtime, kind: .monocle, address: address, app: try emulatorOptions.app(), options: sessionOptions)
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

/// The system bus, with an error that says what to check.
enum BluetoothSupport {
    static func bus() throws -> DBusClient {
        do {
            return try DBusClient.system()
        } catch {
            throw CLIError("Cannot reach BlueZ on the system D-Bus: \(error.localizedDescription)", hint: "Is bluetoothd running (systemctl status bluetooth)? Or try --emulator.")
        }
    }

    static func scanner(_ runtime: SibylRuntime, bus: DBusClient) -> BlueZScanner {
        BlueZScanner(bus: bus, adapter: adapter(runtime))
    }

    /// The Bluetooth adapter the settings name (`glasses.adapter`, hci0 by default).
    static func adapter(_ runtime: SibylRuntime) -> String {
        runtime.settings[.glassesAdapter]
    }

    /// Remembers the glasses held closest (stronger than −65 dBm) as the user's: their address and
    /// kind go to the config (`glasses.device`, `glasses.kind`). `only` limits the choice to one kind.
    static func pairNearest(_ runtime: SibylRuntime, seconds: Double, only kind: GlassesKind? = nil) async throws {
        let bus = try bus()
        defer { bus.close() }
        let picker = PickerBox()
        let kinds = Mutex<[String: GlassesKind]>([:])
        Terminal.print("Hold your \(kind?.displayName ?? "Monocle or Frame") close to this computer…")
        _ = try await BlueZScanner(bus: bus, adapter: adapter(runtime)).scanGlasses(for: .seconds(seconds)) { sightings in
            for glasses in sightings where kind == nil || glasses.kind == kind {
                kinds.withLock { $0[glasses.address] = glasses.kind }
                if let rssi = glasses.rssi { picker.saw(glasses.address, rssi: rssi) }
            }
        }
        let command = kind == .monocle ? "monocle" : "glasses"
        guard let address = picker.nearest, let found = kinds.withLock({ $0[address] }) else {
            throw CLIError(
                "No \(kind?.displayName ?? "glasses") came close enough (stronger than −65 dBm).",
                hint: "Hold \(kind == nil ? "them" : "it") next to the computer and try again; `sibyl \(command) scan` shows what is in reach."
            )
        }
        try await runtime.setSetting(.glassesDevice, to: address)
        try await runtime.setSetting(.glassesKind, to: found)
        Terminal.print("Paired with the \(found.displayName) \(address). Connect with: sibyl \(command) connect")
    }
}

extension GlassesKind {
    /// The glasses' name as the user knows it.
    var displayName: String { self == .frame ? "Frame" : "Monocle" }
}

extension MonocleCommand {
    /// `sibyl monocle scan`.
    struct Scan: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the Monocles in reach, nearest first (Bluetooth, BlueZ).")
        @OptionGroup var global: GlobalOptions
        @Option(help: "How long to scan, in seconds.") var seconds = 5.0

        func run() async throws {
            try await global.withRuntime { runtime in
                let bus = try BluetoothSupport.bus()
                defer { bus.close() }
                let found = try await BluetoothSupport.scanner(runtime, bus: bus).scan(for: .seconds(seconds))
                guard !found.isEmpty else {
                    Terminal.print("No Monocle found. Is it charged and out of its case?")
                    return
                }
                let paired = runtime.settings[.glassesDevice]?.uppercased()
                for monocle in found {
                    let mark = monocle.address.uppercased() == paired ? "  (paired)" : ""
                    Terminal.print("\(monocle.address)  \(monocle.rssi.map { "\($0) dBm" } ?? "? dBm")  \(monocle.name)\(mark)")
                }
            }
        }
    }

    /// `sibyl monocle pair`.
    struct Pair: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remember the Monocle held closest (stronger than −65 dBm) as yours.",
            discussion: "Pairing is Sibyl's own: the address is kept in the config (glasses.device); the glasses need no Bluetooth bonding."
        )
        @OptionGroup var global: GlobalOptions
        @Option(help: "How long to look, in seconds.") var seconds = 10.0

        func run() async throws {
            try await global.withRuntime { runtime in
                try await BluetoothSupport.pairNearest(runtime, seconds: seconds, only: .monocle)
            }
        }
    }

    /// `sibyl monocle unpair`.
    struct Unpair: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Forget the paired Monocle.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.withRuntime { runtime in
                let previous = runtime.settings[.glassesDevice]
                try await runtime.unsetSetting(.glassesDevice)
                try await runtime.unsetSetting(.glassesKind)
                Terminal.print(previous.map { "Forgot the Monocle \($0)." } ?? "No Monocle was paired.")
            }
        }
    }
}

/// The picker, shared with the scan's progress callback.
final class PickerBox: Sendable {
    private let picker = Mutex(NearestMonoclePicker())
    func saw(_ address: String, rssi: Int) { picker.withLock { _ = $0.saw(address, rssi: rssi) } }
    var nearest: String? { picker.withLock { $0.nearest } }
}
