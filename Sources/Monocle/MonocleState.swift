import Foundation

/// What the glasses report about themselves once connected.
public struct DeviceInfo: Sendable, Hashable {
    /// Firmware version (`device.VERSION`), nil when it could not be read.
    public var firmware: String?
    /// FPGA image version (`fpga.read(2,12)`), nil when it could not be read.
    public var fpga: String?
    /// The device app's version, as uploaded.
    public var app: String
    /// Whether this connection uploaded the app (false when the glasses already had it).
    public var uploaded: Bool
    /// The largest write the link takes (ATT MTU − 3).
    public var maximumWriteLength: Int
    /// How long the upload took (every file written and acknowledged), when there was one.
    public var uploadTime: Duration?

    public init(firmware: String?, fpga: String?, app: String, uploaded: Bool, maximumWriteLength: Int, uploadTime: Duration? = nil) {
        self.firmware = firmware
        self.fpga = fpga
        self.app = app
        self.uploaded = uploaded
        self.maximumWriteLength = maximumWriteLength
        self.uploadTime = uploadTime
    }
}

/// Where the controller is with the glasses (the phone apps' controller states, made explicit).
public enum MonocleState: Sendable, Hashable, CustomStringConvertible {
    /// No link; `reason` says why, when a link was lost.
    case disconnected(reason: String?)
    /// Asking the transport for a link.
    case connecting
    /// ^C ^C ^A sent; waiting for the raw-REPL banner.
    case enteringRawREPL(attempt: Int)
    case checkingFirmware
    case checkingFPGA(firmware: String?)
    /// Installing a firmware package through the bootloader; the glasses restart when it is done.
    case updatingFirmware(progress: Double)
    /// Writing a new FPGA image; the glasses restart when it is done.
    case updatingFPGA(progress: Double)
    /// Asking which device-app version the glasses run.
    case checkingApp(firmware: String?, fpga: String?)
    /// Writing the device app, file by file.
    case uploadingApp(file: String, index: Int, count: Int)
    /// Soft reset sent; the app starts.
    case starting
    /// The app runs; data-channel messages flow.
    case running(DeviceInfo)

    /// A short name for logs and tests.
    public var name: String {
        switch self {
        case .disconnected: "disconnected"
        case .connecting: "connecting"
        case .enteringRawREPL: "enteringRawREPL"
        case .checkingFirmware: "checkingFirmware"
        case .checkingFPGA: "checkingFPGA"
        case .updatingFirmware: "updatingFirmware"
        case .updatingFPGA: "updatingFPGA"
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
        case .enteringRawREPL(let attempt): attempt > 1 ? "entering the raw REPL (attempt \(attempt))" : "entering the raw REPL"
        case .checkingFirmware: "checking the firmware version"
        case .checkingFPGA: "checking the FPGA version"
        case .updatingFirmware(let progress): "updating the firmware: \(Int(progress * 100)) %"
        case .updatingFPGA(let progress): "updating the FPGA: \(Int(progress * 100)) %"
        case .checkingApp: "checking the device app"
        case .uploadingApp(let file, let index, let count): "uploading \(file) (\(index + 1)/\(count))"
        case .starting: "starting the device app"
        case .running(let info): "running (firmware \(info.firmware ?? "?"), FPGA \(info.fpga ?? "?"), app \(info.app.prefix(15))…)"
        }
    }
}

/// What the controller reports.
public enum MonocleEvent: Sendable {
    case state(MonocleState)
    /// A data-channel message from the running app.
    case message(AppMessage)
    /// Something worth a line in the log (a retry, a skipped update).
    case notice(String)
    /// A firmware update failed, in words; the glasses stay in their bootloader until updated or restarted.
    case updateFailed(String)
}
