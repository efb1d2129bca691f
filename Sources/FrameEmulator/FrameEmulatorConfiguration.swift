import Foundation
import SecureDFU

/// How a virtual Frame is built: what it reports about itself and how its radio and clock behave.
public struct FrameEmulatorConfiguration: Sendable {
    /// How the device clock runs.
    public enum Clock: Sendable, Equatable {
        /// Real time (`frame.sleep(2)` takes two seconds).
        case realTime
        /// Time passes only while Lua sleeps, in quick steps: sleeps, capture latency and the
        /// microphone's sample rate follow the virtual clock, not the wall clock. Code that polls
        /// `frame.time.utc()` without sleeping (frame-msg's `camera.lua` send retries) sees no time pass.
        case virtual
    }

    /// `frame.FIRMWARE_VERSION` (12 characters on a real Frame, `vYY.DDD.HHMM`).
    public var firmwareVersion = "v25.080.0838"
    /// `frame.GIT_TAG` (a 7-character short commit).
    public var gitTag = "991f40a"
    /// `frame.HARDWARE_VERSION`: `"Frame"` or `"Frame Lite"`.
    public var hardwareVersion = "Frame"
    /// `frame.bluetooth.address()`; its last byte names the device (`"Frame 5A"`).
    public var bluetoothAddress = "F2:3C:61:D4:08:5A"
    /// Whether the device is bonded; an unpaired boot reformats the flash, as the firmware does.
    public var isPaired = true
    /// How long a notification holds the radio's single queue slot; sends in that time fail with
    /// `"bluetooth is busy"` (and prints are lost). Zero frees the slot at once.
    public var notificationSlotTime: Duration = .zero
    /// The device clock.
    public var clock: Clock = .realTime
    /// Time from `frame.camera.capture` until `frame.camera.image_ready()` says true.
    public var captureLatency: Duration = .milliseconds(40)
    /// `frame.battery_level()`.
    public var batteryLevel: Double = 87
    /// The DFU bootloader ("Frame Update") `frame.update()` restarts into: Frame's nRF52840 with
    /// S140 7.3.0 (`--hw-version 52 --sd-req 0x0123`), 4 KiB objects, room for the ~560 KB
    /// application; it trusts no key until one is set (`bootloader.trust(publicKeyPEM:)`), so it
    /// then takes unsigned packages too, as a debug bootloader would.
    public var bootloader: EmulatedBootloader.Settings = {
        var settings = EmulatedBootloader.Settings()
        settings.hardwareVersion = 52
        settings.softDevice = 0x0123
        settings.maximumObjectSize = 4_096
        settings.applicationCapacity = 0xC0_000
        return settings
    }()

    /// The defaults: a paired Frame on firmware v25.080.0838 with real-time clock and a free radio.
    public init() {}
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
