/// Why the virtual Frame refused a host request.
public enum FrameEmulatorError: Error, Equatable, Sendable {
    /// No BLE connection (or the device is off, asleep or in its bootloader).
    case notConnected
    /// A write longer than the negotiated ATT payload (MTU − 3), which the BLE stack refuses.
    case writeTooLong(length: Int, maximum: Int)
    /// An empty write.
    case emptyWrite
    /// The device is not powered on.
    case poweredOff
    /// The Lua VM could not be started.
    case startFailed
}
