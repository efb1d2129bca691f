public import Glasses

/// The Bluetooth identifiers Monocle and its bootloader advertise (firmware v23.248.0754).
public enum MonocleIdentifiers {
    /// The name the glasses advertise.
    public static let deviceName = "monocle"
    /// The name the Nordic DFU bootloader advertises while it waits for a firmware package.
    public static let bootloaderName = "DfuTarg"

    /// The REPL's service (the only UUID in the advertisement) and its two characteristics.
    public static let serialService = "6e400001-b5a3-f393-e0a9-e50e24dcca9e"
    /// Phone → Monocle: the REPL's standard input.
    public static let serialRX = "6e400002-b5a3-f393-e0a9-e50e24dcca9e"
    /// Monocle → phone: the REPL's standard output, as notifications.
    public static let serialTX = "6e400003-b5a3-f393-e0a9-e50e24dcca9e"

    /// The raw data service the device app talks over.
    public static let dataService = "e5700001-7bac-429a-b4ce-57ff900f479d"
    /// Phone → Monocle: delivered to `bluetooth.receive_callback`.
    public static let dataRX = "e5700002-7bac-429a-b4ce-57ff900f479d"
    /// Monocle → phone: what `bluetooth.send` sends.
    public static let dataTX = "e5700003-7bac-429a-b4ce-57ff900f479d"

    /// What a Bluetooth transport needs to find and use Monocle glasses: the REPL's channel and the
    /// data channel, both written without response, no bonding.
    public static let services = GlassesServices(
        kind: .monocle, advertised: [serialService], isDeviceName: { $0 == deviceName },
        channels: [.init(.serial, write: serialRX, notify: serialTX), .init(.data, write: dataRX, notify: dataTX)],
        pairsFirst: false, bootloaderName: bootloaderName
    )
}
