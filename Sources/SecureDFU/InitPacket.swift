public import Crypto
public import Foundation

/// The init packet of a Secure DFU package (`application.dat`): a protocol-buffers message (Nordic's
/// `dfu-cc.proto`) that says what the image is for, how big it is and its SHA-256, signed with the
/// vendor's P-256 key. Sibyl reads it to check a package before sending it; the emulated bootloader
/// reads it to accept or refuse one, as the real one does.
public struct InitPacket: Sendable, Equatable {
    /// `InitCommand.type`.
    public enum FirmwareType: UInt64, Sendable {
        case application = 0
        case softDevice = 1
        case bootloader = 2
        case softDeviceAndBootloader = 3
        case externalApplication = 4
    }

    /// `Hash.hash_type`.
    public enum HashType: UInt64, Sendable {
        case none = 0, crc = 1, sha128 = 2, sha256 = 3, sha512 = 4
    }

    public var firmwareVersion: UInt32 = 0
    public var hardwareVersion: UInt32 = 0
    /// The SoftDevice ids the image runs on (0xFFFE: any).
    public var softDeviceRequired: [UInt32] = []
    public var type: FirmwareType = .application
    public var softDeviceSize: UInt32 = 0
    public var bootloaderSize: UInt32 = 0
    public var applicationSize: UInt32 = 0
    public var hashType: HashType = .none
    /// The image's hash, least significant byte first (SHA-256 digest reversed), as nrfutil writes it.
    public var hash = Data()
    public var isDebug = false

    /// The serialized `InitCommand`, which the signature covers (kept byte for byte as read).
    public private(set) var signedBytes = Data()
    /// `SignedCommand.signature_type` (0: ECDSA P-256 with SHA-256) and the signature: r then s, each
    /// least significant byte first. Nil for an unsigned packet.
    public var signature: (type: UInt64, bytes: Data)? {
        get { signatureType.map { ($0, signatureBytes) } }
        set {
            signatureType = newValue?.type
            signatureBytes = newValue?.bytes ?? Data()
        }
    }
    private var signatureType: UInt64?
    private var signatureBytes = Data()

    public init() {}

    /// Reads a serialized `Packet`.
    public init(serialized: Data) throws {
        var command: Data?
        for field in try Protobuf.fields(of: serialized) {
            switch (field.number, field.value) {
            case (1, .bytes(let plain)):
                command = plain
            case (2, .bytes(let signed)):
                for inner in try Protobuf.fields(of: signed) {
                    switch (inner.number, inner.value) {
                    case (1, .bytes(let bytes)): command = bytes
                    case (2, .varint(let type)): signatureType = type
                    case (3, .bytes(let bytes)): signatureBytes = bytes
                    default: break
                    }
                }
                if signatureType == nil { signatureType = 0 }
            default:
                break
            }
        }
        guard let command else { throw DFUPackageError.invalidInitPacket("it holds no command") }
        var opcode: UInt64 = 1
        var initCommand: Data?
        for field in try Protobuf.fields(of: command) {
            switch (field.number, field.value) {
            case (1, .varint(let code)): opcode = code
            case (2, .bytes(let bytes)): initCommand = bytes
            default: break
            }
        }
        guard opcode == 1, let initCommand else { throw DFUPackageError.invalidInitPacket("its command is not INIT") }
        signedBytes = initCommand
        for field in try Protobuf.fields(of: initCommand) {
            switch (field.number, field.value) {
            case (1, .varint(let value)): firmwareVersion = UInt32(truncatingIfNeeded: value)
            case (2, .varint(let value)): hardwareVersion = UInt32(truncatingIfNeeded: value)
            case (3, .varint(let value)): softDeviceRequired.append(UInt32(truncatingIfNeeded: value))
            case (3, .bytes(let packed)): softDeviceRequired += try Protobuf.packedVarints(packed).map { UInt32(truncatingIfNeeded: $0) }
            case (4, .varint(let value)):
                guard let type = FirmwareType(rawValue: value) else { throw DFUPackageError.invalidInitPacket("unknown image type \(value)") }
                self.type = type
            case (5, .varint(let value)): softDeviceSize = UInt32(truncatingIfNeeded: value)
            case (6, .varint(let value)): bootloaderSize = UInt32(truncatingIfNeeded: value)
            case (7, .varint(let value)): applicationSize = UInt32(truncatingIfNeeded: value)
            case (8, .bytes(let bytes)):
                for inner in try Protobuf.fields(of: bytes) {
                    switch (inner.number, inner.value) {
                    case (1, .varint(let value)): hashType = HashType(rawValue: value) ?? .none
                    case (2, .bytes(let digest)): hash = digest
                    default: break
                    }
                }
            case (9, .varint(let value)): isDebug = value != 0
            default: break
            }
        }
    }

    /// The serialized `InitCommand` for these fields.
    public func encodedInitCommand() -> Data {
        var initCommand = Protobuf.Writer()
        initCommand.varint(1, UInt64(firmwareVersion))
        initCommand.varint(2, UInt64(hardwareVersion))
        initCommand.packed(3, softDeviceRequired.map(UInt64.init))
        initCommand.varint(4, type.rawValue)
        initCommand.varint(5, UInt64(softDeviceSize))
        initCommand.varint(6, UInt64(bootloaderSize))
        initCommand.varint(7, UInt64(applicationSize))
        var hashMessage = Protobuf.Writer()
        hashMessage.varint(1, hashType.rawValue)
        hashMessage.bytes(2, hash)
        initCommand.bytes(8, hashMessage.data)
        initCommand.varint(9, isDebug ? 1 : 0)
        return initCommand.data
    }

    /// The serialized `Packet`: these fields, signed with `key` when one is given (as `nrfutil pkg generate --key-file`).
    public func serialized(signingWith key: P256.Signing.PrivateKey? = nil) throws -> Data {
        let initCommand = encodedInitCommand()
        var commandWriter = Protobuf.Writer()
        commandWriter.varint(1, 1) // INIT
        commandWriter.bytes(2, initCommand)
        let command = commandWriter.data
        var packet = Protobuf.Writer()
        guard let key else {
            packet.bytes(1, command)
            return packet.data
        }
        // The bootloader checks the signature over the InitCommand's bytes, as nrfutil signs them.
        let raw = try key.signature(for: initCommand).rawRepresentation
        var signed = Protobuf.Writer()
        signed.bytes(1, command)
        signed.varint(2, 0) // ECDSA_P256_SHA256
        signed.bytes(3, Data(raw.prefix(32).reversed()) + Data(raw.suffix(32).reversed()))
        packet.bytes(2, signed.data)
        return packet.data
    }

    /// Whether the signature is a valid ECDSA P-256 signature of the init command by `key`.
    public func isSigned(by key: P256.Signing.PublicKey) -> Bool {
        guard let signature, signature.type == 0, signature.bytes.count == 64 else { return false }
        let raw = Data(signature.bytes.prefix(32).reversed()) + Data(signature.bytes.suffix(32).reversed())
        guard let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: raw) else { return false }
        return key.isValidSignature(parsed, for: signedBytes)
    }

    /// The hash this packet expects of `image`, in its own byte order.
    public static func sha256(of image: Data) -> Data {
        Data(SHA256.hash(data: image).reversed())
    }

    public static func == (lhs: InitPacket, rhs: InitPacket) -> Bool {
        lhs.encodedInitCommand() == rhs.encodedInitCommand() && lhs.signatureType == rhs.signatureType && lhs.signatureBytes == rhs.signatureBytes
    }
}

/// Just enough of the protocol-buffers wire format for the init packet.
enum Protobuf {
    enum Value {
        case varint(UInt64)
        case bytes(Data)
        case fixed
    }

    struct Field {
        var number: Int
        var value: Value
    }

    static func fields(of data: Data) throws -> [Field] {
        let bytes = [UInt8](data)
        var index = 0
        var fields: [Field] = []
        while index < bytes.count {
            let key = try varint(bytes, &index)
            let number = Int(key >> 3)
            switch key & 7 {
            case 0:
                fields.append(Field(number: number, value: .varint(try varint(bytes, &index))))
            case 1, 5:
                let width = key & 7 == 1 ? 8 : 4
                guard index + width <= bytes.count else { throw DFUPackageError.invalidInitPacket("it ends in the middle of a field") }
                index += width
                fields.append(Field(number: number, value: .fixed))
            case 2:
                let length = Int(try varint(bytes, &index))
                guard length >= 0, index + length <= bytes.count else { throw DFUPackageError.invalidInitPacket("a field runs past its end") }
                fields.append(Field(number: number, value: .bytes(Data(bytes[index..<index + length]))))
                index += length
            default:
                throw DFUPackageError.invalidInitPacket("it is not a protocol-buffers message")
            }
        }
        return fields
    }

    static func packedVarints(_ data: Data) throws -> [UInt64] {
        let bytes = [UInt8](data)
        var index = 0
        var values: [UInt64] = []
        while index < bytes.count { values.append(try varint(bytes, &index)) }
        return values
    }

    static func varint(_ bytes: [UInt8], _ index: inout Int) throws -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while index < bytes.count, shift < 64 {
            let byte = bytes[index]
            index += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
        throw DFUPackageError.invalidInitPacket("a number is cut short")
    }

    struct Writer {
        var data = Data()

        mutating func raw(_ value: UInt64) {
            var value = value
            repeat {
                let low = UInt8(value & 0x7F)
                value >>= 7
                data.append(value == 0 ? low : low | 0x80)
            } while value != 0
        }

        mutating func varint(_ number: Int, _ value: UInt64) {
            raw(UInt64(number) << 3)
            raw(value)
        }

        mutating func bytes(_ number: Int, _ value: Data) {
            raw(UInt64(number) << 3 | 2)
            raw(UInt64(value.count))
            data.append(value)
        }

        mutating func packed(_ number: Int, _ values: [UInt64]) {
            var inner = Writer()
            for value in values { inner.raw(value) }
            bytes(number, inner.data)
        }
    }
}
