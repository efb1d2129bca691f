/// The Bluetooth identifiers Brilliant Labs Frame and its bootloader advertise (firmware v25.x).
///
/// Frame has one vendor service: Lua code and binary data share its two characteristics and are
/// told apart by their first byte (see ``FrameWrite``).
public enum FrameIdentifiers {
    /// The advertised name is this prefix, a space and two hex digits (the last byte of the address).
    public static let namePrefix = "Frame"
    /// The name the Nordic DFU bootloader advertises while it waits for a firmware package.
    public static let bootloaderName = "Frame Update"

    /// The service (the only 128-bit UUID in the advertisement).
    public static let service = "7a230001-5475-a6a4-654c-8431f6ad49c4"
    /// Host → Frame: Lua chunks, data and the break/reset signals (write with response).
    public static let hostToFrame = "7a230002-5475-a6a4-654c-8431f6ad49c4"
    /// Frame → host: prints and data, as notifications.
    public static let frameToHost = "7a230003-5475-a6a4-654c-8431f6ad49c4"

    /// The MTU Frame answers an exchange with; hosts get at most this.
    public static let preferredMTU = 247

    /// Whether an advertised name is a Frame's (`"Frame 4F"`), not its bootloader's.
    public static func isFrameName(_ name: String) -> Bool {
        let parts = name.split(separator: " ")
        guard parts.count == 2, parts[0] == namePrefix, parts[1].count == 2 else { return false }
        return parts[1].allSatisfy(\.isHexDigit)
    }
}
