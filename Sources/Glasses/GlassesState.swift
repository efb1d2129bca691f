public import SibylCore

/// What the glasses report about themselves once their app runs.
public struct GlassesDeviceInfo: Sendable, Hashable {
    /// The firmware version (`device.VERSION`, `frame.FIRMWARE_VERSION`), nil when it could not be read.
    public var firmware: String?
    /// The FPGA image version (Monocle's `fpga.read(2,12)`), nil when unknown or the glasses have none.
    public var fpga: String?
    /// The device app's version, as uploaded.
    public var app: String
    /// Whether this connection uploaded the app (false when the glasses already had it).
    public var uploaded: Bool
    /// The largest write the link takes (ATT MTU − 3).
    public var maximumWriteLength: Int
    /// How long the upload took (every file written and acknowledged), when there was one.
    public var uploadTime: Duration?
    /// How many writes the upload took (0 when the glasses do not count them or there was none).
    public var uploadWrites: Int

    /// The link's ATT MTU.
    public var mtu: Int { maximumWriteLength + 3 }

    public init(
        firmware: String?, fpga: String? = nil, app: String, uploaded: Bool, maximumWriteLength: Int,
        uploadTime: Duration? = nil, uploadWrites: Int = 0
    ) {
        self.firmware = firmware
        self.fpga = fpga
        self.app = app
        self.uploaded = uploaded
        self.maximumWriteLength = maximumWriteLength
        self.uploadTime = uploadTime
        self.uploadWrites = uploadWrites
    }
}

/// A step of readying freshly connected glasses, before their app is brought up.
public enum GlassesPreparation: Sendable, Hashable {
    /// Monocle: ^C ^C ^A sent; waiting for the raw-REPL banner.
    case enteringRawREPL(attempt: Int)
    /// Frame: break, reset, break, to stop whatever runs and get an idle REPL.
    case interrupting
    /// Asking for the firmware version.
    case checkingFirmware
    /// Monocle: asking for the FPGA image's version.
    case checkingFPGA
    /// Asking which device-app version the glasses hold.
    case checkingApp
}

/// Where a connection is with its glasses.
public enum GlassesPhase: Sendable, Hashable {
    /// No link; `reason` says why, when a link was lost.
    case disconnected(reason: String?)
    /// Asking the transport for a link.
    case connecting
    /// Readying the glasses: one step of the way.
    case preparing(GlassesPreparation)
    /// Installing a firmware package through the bootloader; the glasses restart when it is done.
    case updatingFirmware(progress: Double)
    /// Writing a new FPGA image (Monocle); the glasses restart when it is done.
    case updatingFPGA(progress: Double)
    /// Writing the device app, file by file.
    case uploadingApp(file: String, index: Int, count: Int)
    /// The app is being started.
    case starting
    /// The app runs; messages flow.
    case running(GlassesDeviceInfo)
}

/// Where a connection is with its glasses, and which glasses they are.
public struct GlassesState: Sendable, Hashable, CustomStringConvertible {
    /// Which glasses.
    public var kind: GlassesKind
    /// Where the connection is.
    public var phase: GlassesPhase

    public init(kind: GlassesKind, phase: GlassesPhase) {
        self.kind = kind
        self.phase = phase
    }

    /// Whether the app runs.
    public var isRunning: Bool {
        if case .running = phase { true } else { false }
    }

    /// Whether there is no link.
    public var isDisconnected: Bool {
        if case .disconnected = phase { true } else { false }
    }

    /// What the glasses reported once their app ran, while it runs.
    public var deviceInfo: GlassesDeviceInfo? {
        if case .running(let info) = phase { info } else { nil }
    }

    public var description: String {
        switch phase {
        case .disconnected(let reason): reason.map { "disconnected (\($0))" } ?? "disconnected"
        case .connecting: "connecting"
        case .preparing(.enteringRawREPL(let attempt)): attempt > 1 ? "entering the raw REPL (attempt \(attempt))" : "entering the raw REPL"
        case .preparing(.interrupting): "stopping what runs on the glasses"
        case .preparing(.checkingFirmware): "checking the firmware version"
        case .preparing(.checkingFPGA): "checking the FPGA version"
        case .preparing(.checkingApp): "checking the device app"
        case .updatingFirmware(let progress): "updating the firmware: \(Int(progress * 100)) %"
        case .updatingFPGA(let progress): "updating the FPGA: \(Int(progress * 100)) %"
        case .uploadingApp(let file, let index, let count): "uploading \(file) (\(index + 1)/\(count))"
        case .starting: "starting the device app"
        case .running(let info):
            switch kind {
            case .monocle: "running (firmware \(info.firmware ?? "?"), FPGA \(info.fpga ?? "?"), app \(info.app.prefix(15))…)"
            case .frame: "running (firmware \(info.firmware ?? "?"), app \(info.app.prefix(15))…, MTU \(info.mtu))"
            }
        }
    }
}
