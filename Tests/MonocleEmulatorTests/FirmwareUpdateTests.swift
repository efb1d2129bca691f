import Foundation
import Monocle
import MonocleEmulator
import Synchronization
import Testing

/// A firmware update end to end: the controller asks Sibyl's app firmware to restart into its
/// bootloader, installs the package over Secure DFU, and brings the app up on the new firmware.
@Suite(.enabled(if: TestGlasses.available, "the MicroPython interpreter is not installed (sibyl models install emulator)"))
struct FirmwareUpdateTests {
    static func options(for glasses: MonocleEmulator, package: DFUPackage) -> MonocleController.Options {
        var options = ControllerTests.fastOptions()
        options.firmwarePackage = package
        options.bootloader = EmulatorDFUTransport(emulator: glasses)
        options.dfu.reconnectDelay = .milliseconds(20)
        options.dfu.findTimeout = .seconds(5)
        return options
    }

    /// Runs the controller with the package against the glasses while `body` looks on.
    static func updating(_ glasses: MonocleEmulator, with package: DFUPackage, _ body: (ControllerTests.Observer) async throws -> Void) async throws {
        let controller = MonocleController(transport: EmulatorTransport(emulator: glasses), app: try DeviceApp.sibyl(), options: options(for: glasses, package: package))
        let observer = ControllerTests.Observer()
        let following = observer.follow(controller)
        let serving = Task { await controller.run() }
        var failure: (any Error)?
        do { try await body(observer) } catch { failure = error }
        await controller.stop()
        serving.cancel()
        following.cancel()
        if let failure { throw failure }
    }

    static func configure(_ configuration: inout EmulatorConfiguration) {
        configuration.firmware = "v23.200.0900"
        configuration.bootloader.trustedKey = try? DFUFixture.publicKey()
    }

    @Test func staleFirmwareIsReplacedAndTheAppRunsOnTheNewOne() async throws {
        let package = try DFUFixture.package()
        try await TestGlasses.with(configure: Self.configure) { glasses in
            // The bootloader's link drops in the middle of the third object; the update resumes.
            await glasses.disconnectBootloader(atFirmwareByte: 9_000)
            try await Self.updating(glasses, with: package) { observer in
                let info = try await observer.running()
                #expect(info.firmware == "v23.300.1200")
                #expect(info.uploaded)
                #expect(await glasses.installedFirmware == package.firmware)
                #expect(await glasses.firmwareVersion == "v23.300.1200")
                let progress = observer.states.withLock { $0.compactMap { if case .updatingFirmware(let p) = $0 { p } else { nil } } }
                #expect(progress.first == 0)
                #expect(progress.last == 1)
                #expect(progress.count > 4)
                let notices = observer.notices.withLock { $0 }
                #expect(notices.contains { $0.hasPrefix("resuming the firmware update at byte") })
                #expect(notices.contains { $0.contains("installed (18000 bytes)") })
                _ = try await glasses.waitForScreen { $0.lines.contains { $0.lowercased().contains("tap") } }

                // A reconnect finds the new firmware: nothing is installed again.
                await glasses.disconnect()
                let second = try await observer.running(2)
                #expect(second.firmware == "v23.300.1200")
                #expect(!second.uploaded)
                let updates = observer.states.withLock { $0.filter { if case .updatingFirmware(0) = $0 { true } else { false } }.count }
                #expect(updates == 1)
            }
        }
    }

    @Test func glassesLeftInTheirBootloaderAreUpdatedFirst() async throws {
        let package = try DFUFixture.package()
        try await TestGlasses.with(configure: Self.configure) { glasses in
            await glasses.enterBootloader()
            try await Self.updating(glasses, with: package) { observer in
                let info = try await observer.running()
                #expect(info.firmware == "v23.300.1200")
                #expect(observer.notices.withLock { $0.contains("the glasses are in their bootloader (DfuTarg)") })
            }
        }
    }

    @Test func aPackageTheBootloaderRefusesLeavesTheGlassesOnTheirOldFirmware() async throws {
        let package = try DFUFixture.package()
        try await TestGlasses.with(configure: {
            $0.firmware = "v23.200.0900"
            $0.bootloader.hardwareVersion = 53 // other glasses: the package's hw-version 52 is refused
        }) { glasses in
            try await Self.updating(glasses, with: package) { observer in
                // The bootloader keeps the old application; the wearer restarts the glasses, which boot it.
                try await BlueZMock.waitFor("the refusal") { observer.notices.withLock { $0.contains { $0.contains("the firmware is for other hardware") } } }
                await glasses.leaveBootloader()
                let info = try await observer.running()
                #expect(info.firmware == "v23.200.0900")
                #expect(await glasses.installedFirmware == nil)
                #expect(observer.notices.withLock { $0.contains { $0.contains("was tried already, so it is not installed again") } })
            }
        }
    }
}
