import ArgumentParser
import Assistant
import Foundation
import FrameEmulator
import FrameGlasses
import Glasses
import GlassesBluetooth
import Monocle
import MonocleEmulator
import SecureDFU
import SibylApp
import SibylCore

extension GlassesCommand {
    /// `sibyl glasses update`: installs a firmware package (or, on Monocle, an FPGA image) on the glasses.
    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check the glasses' firmware (and Monocle's FPGA) version, and install new firmware or a new FPGA image.",
            discussion: """
            --firmware takes a Nordic DFU package (the zip Brilliant Labs publishes, made by `nrfutil pkg generate`). It \
            is checked first (its image against the init packet's size and SHA-256). When the glasses report another \
            version, they restart into their bootloader (Monocle: DfuTarg, after update.micropython(); Frame: "Frame \
            Update", after frame.update()) and the image goes over Secure DFU: every object is checked by CRC-32, a \
            damaged one is sent again, and a lost link resumes where it stopped; the bootloader checks the signature. On \
            Monocle, --fpga writes an FPGA image in base64 chunks sized to the link, a failed chunk sent again. The \
            glasses then restart, and Sibyl's app is checked and uploaded as on every connection. Glasses left in their \
            bootloader are updated first. Examples:
              sibyl glasses update --firmware monocle-micropython-v23.248.0754.zip
              sibyl glasses update --emulator --emulated-fpga v23.179.1006 --fpga monocle-fpga.bin --fpga-version v23.230.0808
              sibyl glasses update --kind frame --firmware frame-firmware-v25.080.0838.zip
              sibyl glasses update --emulator --kind frame --emulated-firmware v25.080.0838 --firmware PACKAGE.zip
            """
        )

        @OptionGroup var global: GlobalOptions

        @Option(help: "A firmware package (.zip) to install when the glasses report another version.")
        var firmware: String?

        @Option(name: .customLong("firmware-version"), help: "The version the package's firmware reports (read from the image when not given).")
        var firmwareVersion: String?

        @Option(help: "Monocle: an FPGA image (.bin) to write when the glasses report another version.")
        var fpga: String?

        @Option(name: .customLong("fpga-version"), help: "The version the FPGA image reports, e.g. v23.230.0808.")
        var fpgaVersion: String?

        @Flag(help: "Update the virtual glasses (SIBYL_HOME/monocle/emulator, SIBYL_HOME/frame/emulator) instead of the paired ones.")
        var emulator = false

        @Option(help: "monocle or frame (default: the paired kind, else monocle).")
        var kind: GlassesKind?

        @OptionGroup var emulatorOptions: EmulatorOptions

        func validate() throws {
            if firmware == nil && fpga == nil { throw ValidationError("Give --firmware PACKAGE.zip, --fpga IMAGE.bin (Monocle), or both.") }
            if fpga != nil {
                guard let fpgaVersion, RawREPL.version(in: fpgaVersion) == fpgaVersion else {
                    throw ValidationError("--fpga needs --fpga-version with the image's version, such as v23.230.0808.")
                }
            }
            if let firmwareVersion, DFUPackage.embeddedVersion(in: Data(firmwareVersion.utf8)) != firmwareVersion {
                throw ValidationError("--firmware-version takes a version such as v23.248.0754.")
            }
            if !emulator && (emulatorOptions.emulatedFirmware != nil || emulatorOptions.emulatedBootloaderKey != nil) {
                throw ValidationError("--emulated-firmware and --emulated-bootloader-key are for the virtual glasses (--emulator).")
            }
        }

        func run() async throws {
            try await global.withRuntime { runtime in try await install(runtime) }
        }

        /// The update itself.
        func install(_ runtime: SibylRuntime) async throws {
            let address = emulator ? nil : try GlassesLinking.paired(runtime, kind: kind)
            let kind = kind ?? GlassesLinking.pairedKind(runtime)
            let update = try loadUpdate(kind: kind)
            let package = update.firmware
            let image = update.fpga
            let links = try await connectLinks(runtime, kind: kind, address: address)
            defer { links.close() }
            var options = GlassesConnection.Options()
            options.firmwarePackage = package
            options.bootloader = links.bootloader
            let driver: any GlassesDriver
            switch kind {
            case .monocle:
                var monocle = MonocleDriver.Options()
                monocle.fpgaImage = image
                driver = MonocleDriver(app: try emulatorOptions.app(), options: monocle)
            case .frame:
                driver = FrameDriver(app: .sibyl())
            }
            let connection = GlassesConnection(transport: links.glasses, driver: driver, options: options)
            let serving = Task { await connection.run() }
            let outcome = await Self.follow(connection, package: package, image: image)
            await connection.stop()
            serving.cancel()
            await links.powerOff()
            let info = try outcome.get()
            let fpgaShown = kind == .monocle ? " · FPGA \(info.fpga ?? "unknown")" : ""
            Terminal.print("firmware \(info.firmware ?? "unknown")\(fpgaShown) · app \(info.uploaded ? "uploaded" : "up to date")")
            if let expected = driver.expectedFirmware, info.firmware != expected, package == nil {
                Terminal.print(Terminal.yellow("Sibyl's app is written for firmware \(expected); install it with --firmware PACKAGE.zip."))
            }
            if let package, info.firmware != package.version {
                throw CLIError("The glasses still report firmware \(info.firmware ?? "of no version") instead of \(package.version ?? "?").")
            }
            if let fpgaVersion, info.fpga != fpgaVersion {
                throw CLIError("The FPGA still reports \(info.fpga ?? "no version") instead of \(fpgaVersion).")
            }
        }

        /// Reads the files and checks them (as the server checks an upload) before anything is sent.
        func loadUpdate(kind: GlassesKind) throws -> GlassesUpdate {
            func read(_ path: String, _ what: String) throws -> Data {
                guard let data = FileManager.default.contents(atPath: path) else { throw CLIError("Cannot read the \(what) \(path).") }
                return data
            }
            let update: GlassesUpdate
            do {
                update = try GlassesUpdate(
                    kind: kind, firmwareZip: try firmware.map { try read($0, "firmware package") }, firmwareVersion: firmwareVersion,
                    fpgaImage: try fpga.map { try read($0, "FPGA image") }, fpgaVersion: fpgaVersion
                )
            } catch let invalid as GlassesUpdate.Invalid {
                let option: [GlassesUpdate.Invalid.Field: String] = [.firmware: "--firmware", .firmwareVersion: "--firmware-version", .fpga: "--fpga", .fpgaVersion: "--fpga-version"]
                throw CLIError(invalid.reason, hint: invalid.field.flatMap { option[$0] }.map { "Check \($0)." })
            }
            if let package = update.firmware {
                let signed = package.info.signature == nil ? "unsigned" : "signed"
                Terminal.print("Firmware package: \(package.version ?? "?"), \(package.firmware.count) bytes, hardware \(package.info.hardwareVersion), \(signed)")
            }
            return update
        }

        /// What `update` talks to: the glasses' link and their bootloader's.
        struct Links {
            var glasses: any GlassesTransport
            var bootloader: any DFUTransport
            var powerOff: @Sendable () async -> Void
            var close: @Sendable () -> Void
        }

        /// The virtual glasses' links, or the paired glasses' over BlueZ.
        func connectLinks(_ runtime: SibylRuntime, kind: GlassesKind, address: String?) async throws -> Links {
            if let address {
                let bus = try BluetoothSupport.bus()
                let adapter = BluetoothSupport.adapter(runtime)
                Terminal.print("Connecting to the \(kind.displayName) \(address)…")
                return Links(
                    glasses: BlueZTransport(bus: bus, address: address, services: BluetoothSupport.services(kind), adapter: adapter),
                    bootloader: BluetoothSupport.bootloader(kind, bus: bus, adapter: adapter),
                    powerOff: {}, close: { bus.close() }
                )
            }
            switch kind {
            case .monocle:
                var virtualGlasses = emulatorOptions
                if fpgaVersion != nil { virtualGlasses.emulatedFPGAAfterUpdate = fpgaVersion }
                let glasses = try virtualGlasses.emulator(runtime: runtime, name: Target.emulatorName)
                try await glasses.powerOn()
                return Links(
                    glasses: EmulatorTransport(emulator: glasses, maximumWriteLength: emulatorOptions.writeLength),
                    bootloader: EmulatorDFUTransport(emulator: glasses),
                    powerOff: { await glasses.powerOff() }, close: {}
                )
            case .frame:
                let frame = try emulatorOptions.frameEmulator(runtime: runtime, name: Target.emulatorName)
                try await frame.powerOn()
                Terminal.print("The virtual Frame runs firmware \(frame.firmwareVersion)")
                return Links(
                    glasses: EmulatorFrameTransport(emulator: frame), bootloader: EmulatorFrameDFUTransport(emulator: frame),
                    powerOff: { await frame.powerOff() }, close: {}
                )
            }
        }

        /// Shows the update's progress until the app runs on the glasses, or an update fails.
        static func follow(_ connection: GlassesConnection, package: DFUPackage?, image: FPGAImage?) async -> Result<GlassesDeviceInfo, CLIError> {
            let kind = connection.kind
            let bootloader = connection.driver.bootloaderName
            let progress = ProgressDisplay()
            var updating: String?
            for await event in connection.events {
                switch event {
                case .state(let state):
                    switch state.phase {
                    case .updatingFirmware(let fraction):
                        if updating == nil {
                            updating = "Firmware"
                            progress.observer(.step("Installing firmware \(package?.version ?? "") (\(package?.firmware.count ?? 0) bytes) through the bootloader (\(bootloader))"))
                        }
                        progress.observer(.progress(fraction, detail: ""))
                    case .updatingFPGA(let fraction):
                        if updating == nil {
                            updating = "FPGA image"
                            progress.observer(.step("Writing the FPGA image (\(image?.data.count ?? 0) bytes)"))
                        }
                        progress.observer(.progress(fraction, detail: ""))
                    case .running(let info):
                        progress.finish()
                        return .success(info)
                    case .disconnected:
                        if let what = updating {
                            progress.observer(.finished("\(what) installed; \(kind == .frame ? "Frame restarts" : "the glasses restart")"))
                            updating = nil
                        }
                    case .connecting, .preparing, .uploadingApp, .starting:
                        break
                    }
                case .notice(let text):
                    progress.finish()
                    Terminal.error(Terminal.yellow("[\(kind.rawValue)] \(text)", stderr: true))
                case .updateFailed(let reason):
                    progress.finish()
                    let stays = kind == .frame ? "Frame stays in its bootloader" : "The glasses stay in their bootloader"
                    return .failure(CLIError("The firmware update failed: \(reason)", hint: "\(stays) (\(bootloader)) until updated or restarted; run the update again."))
                case .transferStarted, .recording, .audio, .request, .captionsPaused:
                    break
                }
            }
            progress.finish()
            return .failure(CLIError("The glasses did not come back after the update."))
        }
    }
}
