public import SibylCore

/// What glasses of one kind offer over Bluetooth LE, for a transport to find and use them.
public struct GlassesServices: Sendable {
    /// Which glasses these are.
    public var kind: GlassesKind
    /// The service UUIDs the glasses advertise (what a scan looks for).
    public var advertised: [String]
    /// Whether an advertised name is one of these glasses'.
    public var isDeviceName: @Sendable (String) -> Bool
    /// The characteristics of each channel the glasses offer.
    public var channels: [Channel]
    /// Whether the link must be bonded before it connects (Frame's characteristics need an
    /// encrypted link, and Frame keeps one bond at a time).
    public var pairsFirst: Bool
    /// The name the glasses' DFU bootloader advertises while it waits for a firmware package.
    public var bootloaderName: String

    /// One channel's characteristic pair.
    public struct Channel: Sendable, Hashable {
        /// The channel it carries.
        public var channel: GlassesChannel
        /// Host → glasses.
        public var write: String
        /// Glasses → host, as notifications.
        public var notify: String

        public init(_ channel: GlassesChannel, write: String, notify: String) {
            self.channel = channel
            self.write = write
            self.notify = notify
        }
    }

    public init(
        kind: GlassesKind, advertised: [String], isDeviceName: @escaping @Sendable (String) -> Bool, channels: [Channel],
        pairsFirst: Bool, bootloaderName: String
    ) {
        self.kind = kind
        self.advertised = advertised
        self.isDeviceName = isDeviceName
        self.channels = channels
        self.pairsFirst = pairsFirst
        self.bootloaderName = bootloaderName
    }

    /// Every characteristic UUID the channels use.
    public var characteristicUUIDs: [String] { channels.flatMap { [$0.write, $0.notify] } }
}
