import Foundation
import NIOCore

/// One message between the emulator and the interpreter's firmware stubs: a type byte, a 32-bit
/// big-endian length, the payload.
struct EmulatorFrame: Sendable, Equatable {
    enum Kind: UInt8, Sendable {
        // Emulator → interpreter.
        case executeRaw = 0x58 // X
        case executeFriendly = 0x59 // Y
        case executePasted = 0x5A // Z
        case dataWrite = 0x44 // D
        case touchDown = 0x54 // T
        case touchUp = 0x55 // U
        case connection = 0x43 // C
        case microphone = 0x4D // M
        case photo = 0x50 // P
        case interrupt = 0x49 // I
        /// Asks the interpreter to answer `synced` with the same payload: what it sent before
        /// the answer has then arrived, whatever stdout has overtaken.
        case sync = 0x51 // Q
        // Interpreter → emulator.
        case dataNotify = 0x64 // d
        case display = 0x73 // s
        case led = 0x6C // l
        case fpgaErase = 0x65 // e
        case fpgaWrite = 0x77 // w
        case reset = 0x72 // r
        case bootloader = 0x75 // u
        case boot = 0x62 // b
        case synced = 0x71 // q
    }

    var kind: Kind
    var payload: [UInt8]

    init(_ kind: Kind, _ payload: [UInt8] = []) {
        self.kind = kind
        self.payload = payload
    }

    func write(to buffer: inout ByteBuffer) {
        buffer.writeInteger(kind.rawValue)
        buffer.writeInteger(UInt32(payload.count), endianness: .big)
        buffer.writeBytes(payload)
    }
}

/// Splits the interpreter's socket stream into frames.
struct EmulatorFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = EmulatorFrame

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard buffer.readableBytes >= 5,
              let length = buffer.getInteger(at: buffer.readerIndex + 1, endianness: .big, as: UInt32.self),
              buffer.readableBytes >= 5 + Int(length)
        else { return .needMoreData }
        let type = buffer.readInteger(as: UInt8.self)!
        buffer.moveReaderIndex(forwardBy: 4)
        let payload = buffer.readBytes(length: Int(length)) ?? []
        if let kind = EmulatorFrame.Kind(rawValue: type) {
            context.fireChannelRead(wrapInboundOut(EmulatorFrame(kind, payload)))
        }
        return .continue
    }
}
