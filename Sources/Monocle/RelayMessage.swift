import Foundation

/// The WebSocket relay protocol: a browser with Web Bluetooth carries the bytes, Sibyl runs the controller.
///
/// Binary frames carry bytes: the first byte names the channel (1 serial, 2 data), the rest is
/// the payload. From the browser they are notifications; from Sibyl they are writes, each at most
/// the link's write length, for the browser to send without response. Text frames are JSON
/// control messages: the browser reports `{"type":"connected","maxWriteLength":253}` once both
/// services are discovered and notifications are on, and `{"type":"disconnected","reason":"…"}`;
/// Sibyl asks for `{"type":"connect"}` and `{"type":"disconnect"}`.
public enum RelayMessage: Sendable, Equatable {
    /// Bytes on a channel: a notification (browser → Sibyl) or a write (Sibyl → browser).
    case bytes(MonocleChannel, Data)
    /// Browser → Sibyl: the glasses are connected.
    case connected(maximumWriteLength: Int)
    /// Browser → Sibyl: the glasses are gone.
    case disconnected(reason: String)
    /// Sibyl → browser: please connect (the page may need the user's click first).
    case connectRequest
    /// Sibyl → browser: please disconnect.
    case disconnectRequest

    /// A binary frame's bytes, or nil for a text message.
    public var binary: Data? {
        guard case .bytes(let channel, let payload) = self else { return nil }
        return Data([channel == .serial ? 1 : 2]) + payload
    }

    /// A text frame's JSON, or nil for bytes.
    public var text: String? {
        let object: [String: Any]
        switch self {
        case .bytes: return nil
        case .connected(let length): object = ["type": "connected", "maxWriteLength": length]
        case .disconnected(let reason): object = ["type": "disconnected", "reason": reason]
        case .connectRequest: object = ["type": "connect"]
        case .disconnectRequest: object = ["type": "disconnect"]
        }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// Parses a binary frame.
    public init(binary: Data) throws {
        guard let first = binary.first, first == 1 || first == 2 else {
            throw RelayError.badFrame("a binary frame must start with 1 (serial) or 2 (data)")
        }
        self = .bytes(first == 1 ? .serial : .data, Data(binary.dropFirst()))
    }

    /// Parses a text frame.
    public init(text: String) throws {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any],
              let type = object["type"] as? String
        else { throw RelayError.badFrame("a text frame must be a JSON object with a \"type\"") }
        switch type {
        case "connected":
            guard let length = (object["maxWriteLength"] as? NSNumber)?.intValue, (20...512).contains(length) else {
                throw RelayError.badFrame("\"connected\" needs maxWriteLength between 20 and 512")
            }
            self = .connected(maximumWriteLength: length)
        case "disconnected":
            self = .disconnected(reason: object["reason"] as? String ?? "the browser lost the glasses")
        case "connect":
            self = .connectRequest
        case "disconnect":
            self = .disconnectRequest
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
