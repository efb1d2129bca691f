public import Foundation

/// The WebSocket relay protocol: a browser with Web Bluetooth carries the bytes, Sibyl runs the connection.
///
/// Binary frames carry bytes: the first byte names the channel, the rest is the payload. From the
/// browser they are notifications; from Sibyl they are writes.
/// - 1 (Monocle's serial service) and 2 (Monocle's data service): each write is at most the link's
///   write length, for the browser to send without response.
/// - 3 (Frame's one characteristic pair): each write is one whole packet (Frame routes it by its
///   first byte), for the browser to send *with* response, in order, one at a time; a notification
///   comes as Frame sent it (data ones start with 0x01).
///
/// Text frames are JSON control messages. The browser reports `{"type":"connected","maxWriteLength":253}`
/// once Monocle's two services are discovered and notifications are on, or
/// `{"type":"connected","kind":"frame"}` for Frame (`"mtu":247` may be added by a peer that knows
/// it; a browser cannot, so Sibyl then asks Frame: a break, then `print(frame.bluetooth.max_length())`,
/// whose answer is the MTU − 4). A `connected` without `kind` is Monocle's (`"kind":"monocle"` is
/// also accepted). The first `connected` on a socket decides which glasses it carries. The browser
/// also reports `{"type":"disconnected","reason":"…"}`; Sibyl asks for `{"type":"connect"}` and
/// `{"type":"disconnect"}`.
///
/// A firmware install goes over the same socket: Sibyl asks for `{"type":"connectBootloader"}` once
/// the glasses restarted into their bootloader (Monocle's `DfuTarg`, Frame's "Frame Update", a
/// Bluetooth device of its own), and the page answers `{"type":"bootloaderConnected","maxWriteLength":100}`
/// (or `{"type":"bootloaderDisconnected","reason":"…"}` when it cannot reach it, or loses it).
/// Binary frames 4 carry the DFU control point (Sibyl's writes go with response; the page relays
/// its notifications) and 5 the DFU packet characteristic (writes without response).
/// `{"type":"disconnectBootloader"}` lets it go.
public enum RelayMessage: Sendable, Equatable {
    /// Bytes on a channel (Monocle's serial or data, Frame's): a notification (browser → Sibyl) or a
    /// write (Sibyl → browser; a Frame write is one whole packet).
    case bytes(GlassesChannel, Data)
    /// Browser → Sibyl: Monocle glasses are connected.
    case connected(maximumWriteLength: Int)
    /// Browser → Sibyl: Frame glasses are connected; the MTU when the peer knows it.
    case frameConnected(mtu: Int?)
    /// Browser → Sibyl: the glasses are gone.
    case disconnected(reason: String)
    /// Sibyl → browser: please connect (the page may need the user's click first).
    case connectRequest
    /// Sibyl → browser: please disconnect.
    case disconnectRequest
    /// Bytes on a bootloader characteristic: a control-point notification (browser → Sibyl), or a
    /// write (Sibyl → browser).
    case bootloaderBytes(BootloaderChannel, Data)
    /// Browser → Sibyl: the glasses' bootloader is connected, its DFU notifications on.
    case bootloaderConnected(maximumWriteLength: Int)
    /// Browser → Sibyl: the bootloader could not be reached, or its link dropped.
    case bootloaderDisconnected(reason: String)
    /// Sibyl → browser: please connect to the glasses' bootloader (the page may need the user's click first).
    case bootloaderConnectRequest
    /// Sibyl → browser: please let the bootloader go.
    case bootloaderDisconnectRequest

    /// The bootloader's two characteristics, by the first byte of their binary frames.
    public enum BootloaderChannel: UInt8, Sendable {
        /// The DFU control point: requests written with response, answers as notifications.
        case control = 4
        /// The DFU packet characteristic: an object's bytes, written without response.
        case packet = 5
    }

    /// The channel byte of Frame's bytes.
    public static let frameChannel: UInt8 = 3
    /// The first byte of a binary frame on each channel.
    public static func channelByte(_ channel: GlassesChannel) -> UInt8 {
        switch channel {
        case .serial: 1
        case .data: 2
        case .frame: frameChannel
        }
    }
    /// The MTUs a Frame link may report: the Bluetooth minimum up to the largest ATT MTU.
    public static let frameMTURange = 23...517

    /// A binary frame's bytes, or nil for a text message.
    public var binary: Data? {
        switch self {
        case .bytes(let channel, let payload): Data([Self.channelByte(channel)]) + payload
        case .bootloaderBytes(let channel, let payload): Data([channel.rawValue]) + payload
        default: nil
        }
    }

    /// A text frame's JSON, or nil for bytes.
    public var text: String? {
        let object: [String: Any]
        switch self {
        case .bytes, .bootloaderBytes: return nil
        case .connected(let length): object = ["type": "connected", "maxWriteLength": length]
        case .frameConnected(let mtu):
            var connected: [String: Any] = ["type": "connected", "kind": "frame"]
            if let mtu { connected["mtu"] = mtu }
            object = connected
        case .disconnected(let reason): object = ["type": "disconnected", "reason": reason]
        case .connectRequest: object = ["type": "connect"]
        case .disconnectRequest: object = ["type": "disconnect"]
        case .bootloaderConnected(let length): object = ["type": "bootloaderConnected", "maxWriteLength": length]
        case .bootloaderDisconnected(let reason): object = ["type": "bootloaderDisconnected", "reason": reason]
        case .bootloaderConnectRequest: object = ["type": "connectBootloader"]
        case .bootloaderDisconnectRequest: object = ["type": "disconnectBootloader"]
        }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// Parses a binary frame.
    public init(binary: Data) throws {
        switch binary.first {
        case 1: self = .bytes(.serial, Data(binary.dropFirst()))
        case 2: self = .bytes(.data, Data(binary.dropFirst()))
        case Self.frameChannel: self = .bytes(.frame, Data(binary.dropFirst()))
        case BootloaderChannel.control.rawValue: self = .bootloaderBytes(.control, Data(binary.dropFirst()))
        case BootloaderChannel.packet.rawValue: self = .bootloaderBytes(.packet, Data(binary.dropFirst()))
        default: throw RelayError.badFrame("a binary frame must start with 1 (serial), 2 (data), 3 (Frame), 4 (DFU control) or 5 (DFU packet)")
        }
    }

    /// Parses a text frame.
    public init(text: String) throws {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any],
              let type = object["type"] as? String
        else { throw RelayError.badFrame("a text frame must be a JSON object with a \"type\"") }
        switch type {
        case "connected":
            switch object["kind"] as? String ?? "monocle" {
            case "monocle":
                guard let length = (object["maxWriteLength"] as? NSNumber)?.intValue, (20...512).contains(length) else {
                    throw RelayError.badFrame("\"connected\" needs maxWriteLength between 20 and 512")
                }
                self = .connected(maximumWriteLength: length)
            case "frame":
                guard let value = object["mtu"] else {
                    self = .frameConnected(mtu: nil)
                    return
                }
                guard let mtu = (value as? NSNumber)?.intValue, Self.frameMTURange.contains(mtu) else {
                    throw RelayError.badFrame("a Frame's mtu must be between \(Self.frameMTURange.lowerBound) and \(Self.frameMTURange.upperBound)")
                }
                self = .frameConnected(mtu: mtu)
            case let kind:
                throw RelayError.badFrame("unknown glasses kind \"\(kind)\" (monocle or frame)")
            }
        case "disconnected":
            self = .disconnected(reason: object["reason"] as? String ?? "the browser lost the glasses")
        case "connect":
            self = .connectRequest
        case "disconnect":
            self = .disconnectRequest
        case "bootloaderConnected":
            guard let length = (object["maxWriteLength"] as? NSNumber)?.intValue, (20...512).contains(length) else {
                throw RelayError.badFrame("\"bootloaderConnected\" needs maxWriteLength between 20 and 512")
            }
            self = .bootloaderConnected(maximumWriteLength: length)
        case "bootloaderDisconnected":
            self = .bootloaderDisconnected(reason: object["reason"] as? String ?? "the browser lost the bootloader")
        case "connectBootloader":
            self = .bootloaderConnectRequest
        case "disconnectBootloader":
            self = .bootloaderDisconnectRequest
        default:
            throw RelayError.badFrame("unknown message type \"\(type)\"")
        }
    }
}

/// A relay message that could not be understood.
public enum RelayError: Error, Sendable, Equatable, LocalizedError {
    case badFrame(String)

    public var errorDescription: String? {
        switch self {
        case .badFrame(let why): "Bad relay message: \(why)."
        }
    }
}
