public import Crypto
public import Foundation

/// An emulated Nordic Secure DFU bootloader (the virtual Monocle's `DfuTarg`, the virtual Frame's
/// "Frame Update"), as the nRF5 SDK's behaves over BLE: objects are created, filled through the
/// packet characteristic, checked by CRC-32 and executed; the init packet is validated (signature, hardware, SoftDevice, hash type, size) before any firmware
/// is taken; progress survives a lost link; the whole image's SHA-256 is checked before it is
/// activated. Answers are the bytes the control point would notify.
public struct EmulatedBootloader: Sendable {
    public struct Settings: Sendable {
        /// The key packages must be signed with; nil accepts any signature or none (a debug bootloader).
        public var trustedKey: P256.Signing.PublicKey? {
            get { trustedKeyBytes.flatMap { try? P256.Signing.PublicKey(rawRepresentation: $0) } }
            set { trustedKeyBytes = newValue?.rawRepresentation }
        }
        private var trustedKeyBytes: Data?

        /// Trusts the P-256 public key in a PEM file's text (as `nrfutil keys display --key pk --format pem` prints it).
        public mutating func trust(publicKeyPEM: String) throws {
            trustedKey = try P256.Signing.PublicKey(pemRepresentation: publicKeyPEM)
        }
        /// `--hw-version` the bootloader accepts (nRF52: 52).
        public var hardwareVersion: UInt32 = 52
        /// The SoftDevice on the glasses (S132 as Monocle's packages require: `--sd-req 0x0124`).
        public var softDevice: UInt32 = 0x0124
        /// The largest data object (the SDK's flash page multiple).
        public var maximumObjectSize: UInt32 = 4_096
        /// The largest init packet.
        public var maximumCommandSize: UInt32 = 512
        /// Room for the application (between the SoftDevice and the file system).
        public var applicationCapacity: UInt32 = 0x47_000
        /// The application version installed (an older one in a package is refused).
        public var installedVersion: UInt32 = 0

        public init() {}
    }

    /// What one control-point write does.
    public struct Outcome: Sendable {
        /// Notifications, in order.
        public var notifications: [Data] = []
        /// The complete, verified image, when this write activated it (the glasses restart into it).
        public var activated: Data?
    }

    public var settings: Settings
    private var receiptInterval: UInt16 = 0
    private var packetsSinceReceipt = 0
    private var current: SecureDFU.ObjectType?
    private var command = Data()
    private var commandSize = 0
    private var validInit: InitPacket?
    private var lastInit = Data()
    /// Firmware bytes held: those executed, then the current object's.
    public private(set) var firmware = Data()
    /// How many of them are executed (committed).
    public private(set) var executed = 0
    private var objectEnd = 0

    public init(settings: Settings = Settings()) {
        self.settings = settings
    }

    /// A write to the control point.
    public mutating func control(_ bytes: Data) -> Outcome {
        guard let request = SecureDFU.Request(bytes: bytes) else {
            let code = bytes.first ?? 0
            let known = [SecureDFU.Request.createCode, SecureDFU.Request.receiptNotificationCode, SecureDFU.Request.checksumCode,
                         SecureDFU.Request.executeCode, SecureDFU.Request.selectCode, SecureDFU.Request.abortCode].contains(code)
            return answer(code, known ? .invalidParameter : .opcodeNotSupported)
        }
        switch request {
        case .setReceiptNotification(let interval):
            receiptInterval = interval
            packetsSinceReceipt = 0
            return answer(request.opcode, .success)
        case .select(.command):
            current = .command // select and create name the object later writes, checksums and executes act on
            return Outcome(notifications: [SecureDFU.Response.selection(maximumSize: settings.maximumCommandSize, offset: UInt32(command.count), crc: SecureDFU.crc32(command)).bytes])
        case .select(.data):
            current = .data
            return Outcome(notifications: [SecureDFU.Response.selection(maximumSize: settings.maximumObjectSize, offset: UInt32(firmware.count), crc: SecureDFU.crc32(firmware)).bytes])
        case .create(.command, let size):
            guard size > 0, size <= settings.maximumCommandSize else { return answer(request.opcode, .insufficientResources) }
            current = .command
            command = Data()
            commandSize = Int(size)
            validInit = nil
            return answer(request.opcode, .success)
        case .create(.data, let size):
            guard let validInit else { return answer(request.opcode, .operationNotPermitted) }
            guard size > 0, size <= settings.maximumObjectSize, executed + Int(size) <= Int(validInit.applicationSize) else {
                return answer(request.opcode, .insufficientResources)
            }
            current = .data
            firmware = firmware.prefix(executed) // a new object replaces a partial one
            objectEnd = executed + Int(size)
            packetsSinceReceipt = 0
            return answer(request.opcode, .success)
        case .calculateChecksum:
            let held = current == .command ? command : firmware
            return Outcome(notifications: [SecureDFU.Response.checksum(offset: UInt32(held.count), crc: SecureDFU.crc32(held)).bytes])
        case .execute:
            return current == .command ? executeCommand() : executeData()
        case .abort:
            self = EmulatedBootloader(settings: settings)
            return answer(request.opcode, .success)
        }
    }

    /// A write to the packet characteristic; may answer with a packet receipt.
    public mutating func packet(_ bytes: Data) -> Outcome {
        switch current {
        case .command:
            command.append(bytes.prefix(max(commandSize - command.count, 0)))
            return Outcome()
        case .data:
            firmware.append(bytes.prefix(max(objectEnd - firmware.count, 0)))
            packetsSinceReceipt += 1
            guard receiptInterval > 0, packetsSinceReceipt >= Int(receiptInterval) else { return Outcome() }
            packetsSinceReceipt = 0
            return Outcome(notifications: [SecureDFU.Response.checksum(offset: UInt32(firmware.count), crc: SecureDFU.crc32(firmware)).bytes])
        case nil:
            return Outcome() // no object: the bytes are dropped
        }
    }

    private mutating func executeCommand() -> Outcome {
        let code = SecureDFU.Request.executeCode
        guard commandSize > 0, command.count == commandSize else { return answer(code, .operationNotPermitted) }
        let packet: InitPacket
        do {
            packet = try InitPacket(serialized: command)
        } catch {
            return refuse(.wrongCommandFormat)
        }
        if let key = settings.trustedKey {
            guard let signature = packet.signature else { return refuse(.signatureMissing) }
            guard signature.type == 0 else { return refuse(.wrongSignatureType) }
            guard packet.isSigned(by: key) else { return refuse(.verificationFailed) }
        }
        guard packet.type == .application else { return refuse(.initCommandInvalid) }
        guard packet.hardwareVersion == settings.hardwareVersion else { return refuse(.hardwareVersionFailure) }
        guard packet.softDeviceRequired.contains(settings.softDevice) || packet.softDeviceRequired.contains(0xFFFE) else {
            return refuse(.softDeviceVersionFailure)
        }
        guard packet.isDebug || packet.firmwareVersion >= settings.installedVersion else { return refuse(.firmwareVersionFailure) }
        guard packet.hashType == .sha256, packet.hash.count == 32 else { return refuse(.wrongHashType) }
        guard packet.applicationSize > 0, packet.applicationSize <= settings.applicationCapacity else { return refuse(.insufficientSpace) }
        if command != lastInit {
            // Another image: what was received for the previous one is dropped.
            firmware = Data()
            executed = 0
        }
        lastInit = command
        validInit = packet
        return answer(code, .success)
    }

    private mutating func executeData() -> Outcome {
        let code = SecureDFU.Request.executeCode
        guard let validInit, current == .data, objectEnd > executed, firmware.count == objectEnd else {
            return answer(code, .operationNotPermitted)
        }
        executed = objectEnd
        guard executed == Int(validInit.applicationSize) else { return answer(code, .success) }
        guard InitPacket.sha256(of: firmware) == validInit.hash else {
            let refusal = refuse(.verificationFailed)
            firmware = Data()
            executed = 0
            return refusal
        }
        var outcome = answer(code, .success)
        outcome.activated = firmware
        settings.installedVersion = validInit.firmwareVersion
        return outcome
    }

    private func answer(_ opcode: UInt8, _ result: SecureDFU.Result) -> Outcome {
        Outcome(notifications: [SecureDFU.Response(opcode: opcode, result: result).bytes])
    }

    private func refuse(_ reason: SecureDFU.ExtendedError) -> Outcome {
        Outcome(notifications: [SecureDFU.Response(opcode: SecureDFU.Request.executeCode, result: .extendedError, extendedError: reason).bytes])
    }
}
