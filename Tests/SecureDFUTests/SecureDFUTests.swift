import Crypto
import Foundation
import SecureDFU
import Testing
import ZIPFoundation

/// The test firmware package, made by Nordic's own packager (`scripts/dfu/make-fixture.py monocle`).
enum DFUFixture {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/dfu")
    static var zip: URL { directory.appendingPathComponent("monocle-firmware-test.zip") }
    static func publicKey() throws -> P256.Signing.PublicKey {
        try P256.Signing.PublicKey(pemRepresentation: String(contentsOf: directory.appendingPathComponent("test-key-public.pem"), encoding: .utf8))
    }

    /// A zip with these entries (stored, as nrfutil writes them).
    static func zip(_ entries: [String: Data]) throws -> Data {
        let archive = try Archive(data: Data(), accessMode: .create)
        for (name, data) in entries.sorted(by: { $0.key < $1.key }) {
            try archive.addEntry(with: name, type: .file, uncompressedSize: Int64(data.count)) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        return try #require(archive.data)
    }

    static let manifest = Data(#"{"manifest": {"application": {"bin_file": "application.bin", "dat_file": "application.dat"}}}"#.utf8)
}

@Suite(.timeLimit(.minutes(10))) struct SecureDFUTests {
    @Test func nrfutilsPackageIsReadAndItsInitPacketUnderstood() throws {
        let package = try DFUPackage(contentsOf: DFUFixture.zip)
        #expect(package.firmware.count == 18_000)
        #expect(package.version == "v23.300.1200")
        let info = package.info
        #expect(info.type == .application)
        #expect(info.hardwareVersion == 52)
        #expect(info.softDeviceRequired == [0x0124])
        #expect(info.firmwareVersion == 1)
        #expect(info.applicationSize == 18_000)
        #expect(info.hashType == .sha256)
        #expect(info.hash == InitPacket.sha256(of: package.firmware))
        #expect(info.signature?.type == 0)
        #expect(info.isSigned(by: try DFUFixture.publicKey()))
        #expect(!info.isSigned(by: P256.Signing.PrivateKey().publicKey))
    }

    @Test func initPacketsRoundTripAndSignaturesVerify() throws {
        let key = P256.Signing.PrivateKey()
        var packet = InitPacket()
        packet.firmwareVersion = 7
        packet.hardwareVersion = 52
        packet.softDeviceRequired = [0x0124, 0x0101]
        packet.applicationSize = 1_234
        packet.hashType = .sha256
        packet.hash = InitPacket.sha256(of: Data(repeating: 9, count: 1_234))
        let signed = try InitPacket(serialized: try packet.serialized(signingWith: key))
        #expect(signed.softDeviceRequired == [0x0124, 0x0101])
        #expect(signed.applicationSize == 1_234)
        #expect(signed.isSigned(by: key.publicKey))
        var forged = signed
        forged.signature = (0, Data(repeating: 1, count: 64))
        #expect(!forged.isSigned(by: key.publicKey))
        let unsigned = try InitPacket(serialized: try packet.serialized())
        #expect(unsigned.signature == nil)
        #expect(!unsigned.isSigned(by: key.publicKey))
        #expect(throws: DFUPackageError.self) { try InitPacket(serialized: Data([0x12, 0x40, 0x01])) }
    }

    @Test func requestsAndResponsesHaveTheBootloadersBytes() throws {
        #expect(SecureDFU.Request.create(.data, size: 4_096).bytes == Data([0x01, 0x02, 0x00, 0x10, 0x00, 0x00]))
        #expect(SecureDFU.Request.setReceiptNotification(12).bytes == Data([0x02, 0x0C, 0x00]))
        #expect(SecureDFU.Request.select(.command).bytes == Data([0x06, 0x01]))
        #expect(SecureDFU.Request.execute.bytes == Data([0x04]))
        for request: SecureDFU.Request in [.create(.command, size: 141), .setReceiptNotification(3), .calculateChecksum, .execute, .select(.data), .abort] {
            #expect(SecureDFU.Request(bytes: request.bytes) == request)
        }
        #expect(SecureDFU.Request(bytes: Data([0x01, 0x02])) == nil)

        let selection = try #require(SecureDFU.Response(bytes: Data([0x60, 0x06, 0x01, 0x00, 0x10, 0, 0, 0x20, 0, 0, 0, 0x78, 0x56, 0x34, 0x12]))?.selection)
        #expect(selection.maximumSize == 4_096 && selection.offset == 32 && selection.crc == 0x1234_5678)
        let refusal = try #require(SecureDFU.Response(bytes: Data([0x60, 0x04, 0x0B, 0x06])))
        #expect(refusal.result == .extendedError && refusal.extendedError == .hardwareVersionFailure)
        #expect(refusal.reason == "the firmware is for other hardware")
        #expect(SecureDFU.Response.checksum(offset: 9, crc: 1).checksum! == (9, 1))
        // zlib's CRC-32 check value.
        #expect(SecureDFU.crc32(Data("123456789".utf8)) == 0xCBF4_3926)
        #expect(SecureDFU.crc32(Data("6789".utf8), continuing: SecureDFU.crc32(Data("12345".utf8))) == 0xCBF4_3926)
    }

    @Test func damagedOrForeignPackagesAreRefusedBeforeAnythingIsSent() throws {
        let good = try DFUPackage(contentsOf: DFUFixture.zip)
        var damaged = good.firmware
        damaged[100] ^= 0x01
        #expect(throws: DFUPackageError.mismatch("the image's SHA-256 differs from the one in its init packet")) {
            try DFUPackage(zip: try DFUFixture.zip(["manifest.json": DFUFixture.manifest, "application.dat": good.initPacket, "application.bin": damaged]))
        }
        #expect(throws: DFUPackageError.mismatch("the image has 17999 bytes but its init packet says 18000")) {
            try DFUPackage(initPacket: good.initPacket, firmware: good.firmware.prefix(17_999))
        }
        #expect(throws: DFUPackageError.notAPackage("it is not a zip file")) { try DFUPackage(zip: Data("hello".utf8)) }
        #expect(throws: DFUPackageError.notAPackage("it has no manifest.json")) {
            try DFUPackage(zip: try DFUFixture.zip(["application.bin": good.firmware]))
        }
        let bootloaderOnly = Data(#"{"manifest": {"bootloader": {"bin_file": "bl.bin", "dat_file": "bl.dat"}}}"#.utf8)
        #expect(throws: DFUPackageError.unsupported("it holds bootloader, not an application image")) {
            try DFUPackage(zip: try DFUFixture.zip(["manifest.json": bootloaderOnly]))
        }
        #expect(throws: DFUPackageError.self) { try DFUPackage(contentsOf: URL(fileURLWithPath: "/nonexistent/monocle.zip")) }
        let error = DFUPackageError.mismatch("x").localizedDescription
        #expect(error == "The firmware package is damaged: x.")
    }

    @Test func theFirmwareVersionIsFoundInTheImage() {
        var image = Data(repeating: 0xA5, count: 64)
        image += Data("\0v23.248.0754\0".utf8) + Data(repeating: 0x11, count: 8)
        #expect(DFUPackage.embeddedVersion(in: image) == "v23.248.0754")
        #expect(DFUPackage.embeddedVersion(in: Data("xv23.248.07541".utf8)) == nil)
        #expect(DFUPackage.embeddedVersion(in: Data("v23.248.075".utf8)) == nil)
    }
}
