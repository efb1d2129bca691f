import Foundation

/// What Frame reports about itself once Sibyl's app runs.
public struct FrameDeviceInfo: Sendable, Hashable {
    /// `frame.FIRMWARE_VERSION`, nil when it could not be read.
    public var firmware: String?
    /// The device app's version, as uploaded.
    public var app: String
    /// Whether this connection uploaded the app (false when the glasses already had it).
    public var uploaded: Bool
    /// The link's MTU.
    public var mtu: Int
    /// How long the upload took, when there was one.
    public var uploadTime: Duration?
    /// How many writes the upload took.
    public var uploadWrites: Int

    public init(firmware: String?, app: String, uploaded: Bool, mtu: Int, uploadTime: Duration? = nil, uploadWrites: Int = 0) {
        self.firmware = firmware
        self.app = app
        self.uploaded = uploaded
        self.mtu = mtu
        self.uploadTime = uploadTime
        self.uploadWrites = uploadWrites
    }
}

/// Where the controller is with Frame.
public enum FrameState: Sendable, Hashable, CustomStringConvertible {
    /// No link; `reason` says why, when a link was lost.
    case disconnected(reason: String?)
    /// Asking the transport for a link.
    case connecting
    /// Break, reset, break: stopping whatever runs and getting an idle REPL.
    case interrupting
    case checkingFirmware
    /// Installing a firmware package through the bootloader ("Frame Update"); Frame restarts when it is done.
    case updatingFirmware(progress: Double)
    case checkingApp(firmware: String?)
    /// Writing the device app, file by file.
    case uploadingApp(file: String, index: Int, count: Int)
    /// `require` sent; waiting for the app to say it is ready.
    case starting
    /// The app runs; messages flow.
    case running(FrameDeviceInfo)

    /// A short name for logs and tests.
    public var name: String {
        switch self {
        case .disconnected: "disconnected"
        case .connecting: "connecting"
        case .interrupting: "interrupting"
        case .checkingFirmware: "checkingFirmware"
        case .updatingFirmware: "updatingFirmware"
        case .checkingApp: "checkingApp"
        case .uploadingApp: "uploadingApp"
        case .starting: "starting"
        case .running: "running"
        }
    }

    public var description: String {
        switch self {
        case .disconnected(let reason): reason.map { "disconnected (\($0))" } ?? "disconnected"
        case .connecting: "connecting"
        case .interrupting: "stopping what runs on the glasses"
        case .checkingFirmware: "checking the firmware version"
        case .updatingFirmware(let progress): "updating the firmware: \(Int(progress * 100)) %"
        case .checkingApp: "checking the device app"
        case .uploadingApp(let file, let index, let count): "uploading \(file) (\(index + 1)/\(count))"
        case .starting: "starting the device app"
        case .running(let info): "running (firmware \(info.firmware ?? "?"), app \(info.app.prefix(15))…, MTU \(info.mtu))"
        }
    }
}

/// What a ``FrameController`` reports, in order.
public enum FrameEvent: Sendable, Equatable {
    case state(FrameState)
    /// A retry, a version mismatch, an error the app printed.
    case notice(String)
    /// Text the running app printed (Sibyl's app prints only its ready line and its errors).
    case printed(String)
    /// Data the running app sent (taps, audio, photos), without the firmware's 0x01.
    case data(Data)
    /// A firmware update failed; Frame may wait in its bootloader until it is updated or restarted.
    case updateFailed(String)
}
