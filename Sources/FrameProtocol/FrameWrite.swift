import Foundation

/// The sizes a connection's MTU allows.
///
/// Frame stores the negotiated ATT payload (MTU − 3); a Lua chunk may fill it, a data write loses
/// one byte to its 0x01 prefix, and `frame.bluetooth.max_length()` on the device is MTU − 4.
public struct FrameLimits: Sendable, Hashable {
    /// The negotiated ATT MTU (23 when no exchange happened; Frame offers at most 247).
    public let mtu: Int

    public init(mtu: Int) {
        self.mtu = mtu
    }

    /// The longest Lua chunk, in UTF-8 bytes.
    public var maximumLuaLength: Int { mtu - 3 }
    /// The longest payload after a data write's 0x01 prefix; also what `max_length()` returns on Frame.
    public var maximumDataLength: Int { mtu - 4 }
}

/// One write to Frame's host-to-device characteristic; its first byte routes it on the device.
public enum FrameWrite: Sendable, Hashable {
    /// Lua source, run by the REPL loop when it is idle (nothing is echoed).
    case lua(String)
    /// Bytes for the function registered with `frame.bluetooth.receive_callback` (sent after 0x01).
    case data(Data)
    /// 0x03: raises "break signal" in whatever Lua code runs.
    case breakSignal
    /// 0x04: restarts the Lua VM, which runs `main.lua` again; acts only when the REPL loop is idle.
    case resetSignal

    public static let dataPrefix: UInt8 = 0x01
    public static let breakByte: UInt8 = 0x03
    public static let resetByte: UInt8 = 0x04

    /// The bytes to write, checked against what the firmware accepts.
    public func bytes(limits: FrameLimits) throws(FrameProtocolError) -> Data {
        switch self {
        case .breakSignal: return Data([Self.breakByte])
        case .resetSignal: return Data([Self.resetByte])
        case .data(let payload):
            guard payload.count <= limits.maximumDataLength else {
                throw .tooLong(what: "data", length: payload.count, limit: limits.maximumDataLength)
            }
            return Data([Self.dataPrefix]) + payload
        case .lua(let code):
            let bytes = Data(code.utf8)
            guard !bytes.isEmpty else { throw .invalidLua("the chunk is empty") }
            guard bytes.count <= limits.maximumLuaLength else {
                throw .tooLong(what: "Lua chunk", length: bytes.count, limit: limits.maximumLuaLength)
            }
            // The firmware copies the chunk as a C string and routes by the first byte.
            guard !bytes.contains(0) else { throw .invalidLua("the chunk contains a NUL byte") }
            guard ![Self.dataPrefix, Self.breakByte, Self.resetByte].contains(bytes[bytes.startIndex]) else {
                throw .invalidLua("the chunk starts with a control byte (0x\(String(bytes[bytes.startIndex], radix: 16)))")
            }
            return bytes
        }
    }
}

/// A problem with what a host would send to Frame, or with what came back.
public enum FrameProtocolError: Error, Equatable, LocalizedError {
    case tooLong(what: String, length: Int, limit: Int)
    case invalidLua(String)
    case invalidMessageCode(Int)
    case malformed(String)

    public var errorDescription: String? {
        switch self {
        case .tooLong(let what, let length, let limit): "The \(what) is \(length) bytes; Frame takes at most \(limit) at this MTU."
        case .invalidLua(let reason): "Frame cannot run this Lua: \(reason)."
        case .invalidMessageCode(let code): "A message code is one byte (0–255), not \(code)."
        case .malformed(let reason): "Frame sent something malformed: \(reason)."
        }
    }
}
