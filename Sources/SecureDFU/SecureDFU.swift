public import Foundation
import ZIPFoundation

/// Nordic Secure DFU over Bluetooth LE (the nRF5 SDK bootloader Monocle's firmware ships with, which
/// advertises as `DfuTarg`): the control point's requests, responses and error codes.
///
/// The control point (`8ec90001…`) takes requests written with response and answers each with a
/// notification `60 <request> <result> [payload]`; the packet characteristic (`8ec90002…`) takes the
/// object's bytes, written without response. A firmware image travels as one "command" object (the
/// signed init packet) and a run of "data" objects of at most the size the bootloader names, each
/// checked by CRC-32 before it is executed (committed).
public enum SecureDFU {
    /// The DFU service a bootloader advertises (0xFE59), whichever glasses it belongs to.
    public static let service = "0000fe59-0000-1000-8000-00805f9b34fb"
    /// The control point: requests written with response, answers as notifications.
    public static let controlPoint = "8ec90001-f315-4f60-9fb8-838830daea50"
    /// The packet characteristic: object bytes written without response.
    public static let packet = "8ec90002-f315-4f60-9fb8-838830daea50"

    /// The two kinds of object.
    public enum ObjectType: UInt8, Sendable, CustomStringConvertible {
        /// The init packet.
        case command = 0x01
        /// The firmware image.
        case data = 0x02

        public var description: String { self == .command ? "init packet" : "firmware" }
    }

    /// The control point's requests (the BLE transport's subset).
    public enum Request: Sendable, Equatable, CustomStringConvertible {
        case create(ObjectType, size: UInt32)
        /// Ask for a checksum notification after every `n` packet writes (0: never).
        case setReceiptNotification(UInt16)
        case calculateChecksum
        case execute
        case select(ObjectType)
        case abort

        public static let createCode: UInt8 = 0x01
        public static let receiptNotificationCode: UInt8 = 0x02
        public static let checksumCode: UInt8 = 0x03
        public static let executeCode: UInt8 = 0x04
        public static let selectCode: UInt8 = 0x06
        public static let abortCode: UInt8 = 0x0C

        public var opcode: UInt8 {
            switch self {
            case .create: Self.createCode
            case .setReceiptNotification: Self.receiptNotificationCode
            case .calculateChecksum: Self.checksumCode
            case .execute: Self.executeCode
            case .select: Self.selectCode
            case .abort: Self.abortCode
            }
        }

        /// The bytes written to the control point.
        public var bytes: Data {
            var out = Data([opcode])
            switch self {
            case .create(let type, let size):
                out.append(type.rawValue)
                out.appendLittleEndian(size)
            case .setReceiptNotification(let interval):
                out.appendLittleEndian(interval)
            case .select(let type):
                out.append(type.rawValue)
            case .calculateChecksum, .execute, .abort:
                break
            }
            return out
        }

        /// Parses a control-point write (what the bootloader does); nil when the opcode is unknown or the length is wrong.
        public init?(bytes: Data) {
            let bytes = [UInt8](bytes)
            guard let code = bytes.first else { return nil }
            switch (code, bytes.count) {
            case (Self.createCode, 6):
                guard let type = ObjectType(rawValue: bytes[1]) else { return nil }
                self = .create(type, size: UInt32(littleEndianBytes: bytes[2..<6]))
            case (Self.receiptNotificationCode, 3): self = .setReceiptNotification(UInt16(bytes[1]) | UInt16(bytes[2]) << 8)
            case (Self.checksumCode, 1): self = .calculateChecksum
            case (Self.executeCode, 1): self = .execute
            case (Self.selectCode, 2):
                guard let type = ObjectType(rawValue: bytes[1]) else { return nil }
                self = .select(type)
            case (Self.abortCode, 1): self = .abort
            default: return nil
            }
        }

        public var description: String {
            switch self {
            case .create(let type, let size): "create the \(type) object (\(size) bytes)"
            case .setReceiptNotification(let n): "set packet receipts to every \(n)"
            case .calculateChecksum: "calculate the checksum"
            case .execute: "execute the object"
            case .select(let type): "select the \(type) object"
            case .abort: "abort"
            }
        }
    }

    /// The result byte of a response.
    public enum Result: UInt8, Sendable, CustomStringConvertible {
        case invalidCode = 0x00
        case success = 0x01
        case opcodeNotSupported = 0x02
        case invalidParameter = 0x03
        case insufficientResources = 0x04
        case invalidObject = 0x05
        case unsupportedType = 0x07
        case operationNotPermitted = 0x08
        case operationFailed = 0x0A
        /// An `ExtendedError` byte follows.
        case extendedError = 0x0B

        public var description: String {
            switch self {
            case .invalidCode: "invalid code"
            case .success: "success"
            case .opcodeNotSupported: "request not supported"
            case .invalidParameter: "invalid parameter"
            case .insufficientResources: "not enough memory for the object"
            case .invalidObject: "invalid object"
            case .unsupportedType: "unsupported object type"
            case .operationNotPermitted: "not allowed in this state"
            case .operationFailed: "operation failed"
            case .extendedError: "extended error"
            }
        }
    }

    /// Why the bootloader refused an init packet or an image.
    public enum ExtendedError: UInt8, Sendable, CustomStringConvertible {
        case noError = 0x00
        case invalidErrorCode = 0x01
        case wrongCommandFormat = 0x02
        case unknownCommand = 0x03
        case initCommandInvalid = 0x04
        case firmwareVersionFailure = 0x05
        case hardwareVersionFailure = 0x06
        case softDeviceVersionFailure = 0x07
        case signatureMissing = 0x08
        case wrongHashType = 0x09
        case hashFailed = 0x0A
        case wrongSignatureType = 0x0B
        case verificationFailed = 0x0C
        case insufficientSpace = 0x0D

        public var description: String {
            switch self {
            case .noError: "no error"
            case .invalidErrorCode: "invalid error code"
            case .wrongCommandFormat: "the init packet is malformed"
            case .unknownCommand: "the init packet's command is unknown"
            case .initCommandInvalid: "the init packet is invalid"
            case .firmwareVersionFailure: "the firmware is older than the one installed"
            case .hardwareVersionFailure: "the firmware is for other hardware"
            case .softDeviceVersionFailure: "the firmware needs another SoftDevice"
            case .signatureMissing: "the package is not signed"
            case .wrongHashType: "the init packet's hash type is not supported"
            case .hashFailed: "the image's hash could not be computed"
            case .wrongSignatureType: "the signature type is not supported"
            case .verificationFailed: "the image or its signature does not verify"
            case .insufficientSpace: "the image does not fit in flash"
            }
        }
    }

    /// The first byte of every control-point notification.
    public static let responseCode: UInt8 = 0x60

    /// One control-point notification.
    public struct Response: Sendable, Equatable {
        /// The request it answers.
        public var opcode: UInt8
        public var result: Result
        public var extendedError: ExtendedError?
        public var payload: Data

        public init(opcode: UInt8, result: Result, extendedError: ExtendedError? = nil, payload: Data = Data()) {
            self.opcode = opcode
            self.result = result
            self.extendedError = extendedError
            self.payload = payload
        }

        public init?(bytes: Data) {
            let bytes = [UInt8](bytes)
            guard bytes.count >= 3, bytes[0] == SecureDFU.responseCode, let result = Result(rawValue: bytes[2]) else { return nil }
            opcode = bytes[1]
            self.result = result
            if result == .extendedError {
                extendedError = bytes.count > 3 ? ExtendedError(rawValue: bytes[3]) ?? .invalidErrorCode : .invalidErrorCode
                payload = Data()
            } else {
                payload = Data(bytes.dropFirst(3))
            }
        }

        public var bytes: Data {
            var out = Data([SecureDFU.responseCode, opcode, result.rawValue])
            if let extendedError { out.append(extendedError.rawValue) }
            out.append(payload)
            return out
        }

        /// A checksum answer: bytes received so far and the CRC-32 over all of them.
        public static func checksum(offset: UInt32, crc: UInt32) -> Response {
            var payload = Data()
            payload.appendLittleEndian(offset)
            payload.appendLittleEndian(crc)
            return Response(opcode: Request.checksumCode, result: .success, payload: payload)
        }

        /// A select answer: the largest object, bytes received so far and their CRC-32.
        public static func selection(maximumSize: UInt32, offset: UInt32, crc: UInt32) -> Response {
            var payload = Data()
            payload.appendLittleEndian(maximumSize)
            payload.appendLittleEndian(offset)
            payload.appendLittleEndian(crc)
            return Response(opcode: Request.selectCode, result: .success, payload: payload)
        }

        /// `(offset, crc)` from a checksum answer.
        public var checksum: (offset: UInt32, crc: UInt32)? {
            guard payload.count >= 8 else { return nil }
            let bytes = [UInt8](payload)
            return (UInt32(littleEndianBytes: bytes[0..<4]), UInt32(littleEndianBytes: bytes[4..<8]))
        }

        /// `(maximumSize, offset, crc)` from a select answer.
        public var selection: (maximumSize: UInt32, offset: UInt32, crc: UInt32)? {
            guard payload.count >= 12 else { return nil }
            let bytes = [UInt8](payload)
            return (UInt32(littleEndianBytes: bytes[0..<4]), UInt32(littleEndianBytes: bytes[4..<8]), UInt32(littleEndianBytes: bytes[8..<12]))
        }

        /// The refusal in words, for an error message.
        public var reason: String {
            extendedError.map(\.description) ?? result.description
        }
    }

    /// CRC-32 (IEEE 802.3, as zlib and the bootloader compute it), continuing from `previous`.
    public static func crc32(_ bytes: Data, continuing previous: UInt32 = 0) -> UInt32 {
        bytes.crc32(checksum: previous)
    }
}

extension Data {
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}

extension UInt32 {
    init(littleEndianBytes bytes: ArraySlice<UInt8>) {
        self = bytes.reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }
}
