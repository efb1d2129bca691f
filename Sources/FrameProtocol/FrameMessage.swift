import Foundation

/// A message to a device app that uses frame-msg's data.lua: a one-byte code and up to 65,535
/// bytes, split into data writes that fit the MTU.
///
/// The first packet is `code, size (UInt16 big-endian), bytes…`, the others `code, bytes…`; each
/// goes out as one data write (0x01 first). data.lua acknowledges every packet, and the host sends
/// the next one only after that (the firmware keeps a single pending data write: a second one
/// that arrives before Lua took the first replaces it).
public struct FrameMessage: Sendable, Hashable {
    public static let maximumPayload = 65_535

    public let code: UInt8
    public let payload: Data

    public init(code: UInt8, payload: Data) throws(FrameProtocolError) {
        guard payload.count <= Self.maximumPayload else {
            throw .tooLong(what: "message", length: payload.count, limit: Self.maximumPayload)
        }
        self.code = code
        self.payload = payload
    }

    public init(code: UInt8, _ content: some FrameMessageContent) throws(FrameProtocolError) {
        try self.init(code: code, payload: content.packed())
    }

    /// The data writes, each with its 0x01 prefix, in order.
    public func writes(limits: FrameLimits) throws(FrameProtocolError) -> [Data] {
        let room = limits.maximumDataLength
        guard room >= 4 else { throw .tooLong(what: "message header", length: 4, limit: room) }
        var writes: [Data] = []
        let size = UInt16(payload.count)
        var first = Data([FrameWrite.dataPrefix, code, UInt8(size >> 8), UInt8(size & 0xFF)])
        var offset = payload.startIndex
        let firstEnd = payload.index(offset, offsetBy: min(room - 3, payload.count))
        first.append(payload[offset..<firstEnd])
        writes.append(first)
        offset = firstEnd
        while offset < payload.endIndex {
            let end = payload.index(offset, offsetBy: min(room - 1, payload.endIndex - offset))
            var packet = Data([FrameWrite.dataPrefix, code])
            packet.append(payload[offset..<end])
            writes.append(packet)
            offset = end
        }
        return writes
    }
}

/// The body of a message, packed as frame-msg's Python `Tx…` classes pack it.
public protocol FrameMessageContent: Sendable {
    func packed() -> Data
}
