public import Foundation
import ZIPFoundation

/// Why a firmware package cannot be used.
public enum DFUPackageError: Error, Sendable, Equatable, LocalizedError {
    case unreadable(String)
    case notAPackage(String)
    case unsupported(String)
    case invalidInitPacket(String)
    case mismatch(String)

    public var errorDescription: String? {
        switch self {
        case .unreadable(let reason): "Cannot read the firmware package: \(reason)."
        case .notAPackage(let reason): "This is not a Nordic DFU package (a zip from `nrfutil pkg generate`): \(reason)."
        case .unsupported(let reason): "This firmware package cannot be installed by Sibyl: \(reason)."
        case .invalidInitPacket(let reason): "The package's init packet (application.dat) is invalid: \(reason)."
        case .mismatch(let reason): "The firmware package is damaged: \(reason)."
        }
    }
}

/// A glasses firmware package (Monocle's or Frame's): the zip Brilliant Labs publishes (`manifest.json`, `application.dat`,
/// `application.bin`), as made by `nrfutil pkg generate`. Opening one checks that the image matches
/// its init packet (size and SHA-256), so a damaged download is refused before anything is sent.
public struct DFUPackage: Sendable, Equatable {
    /// `application.dat`, sent as the command object.
    public var initPacket: Data
    /// `application.bin`, sent as data objects.
    public var firmware: Data
    /// The init packet, read.
    public var info: InitPacket
    /// The firmware version the glasses will report (`device.VERSION`) once it runs: given, or
    /// found in the image (the firmware keeps its build date, `vYY.DDD.HHMM`, as a string).
    public var version: String?

    /// A package from its two parts; `version` overrides the one found in the image.
    public init(initPacket: Data, firmware: Data, version: String? = nil) throws {
        let info = try InitPacket(serialized: initPacket)
        guard info.type == .application else {
            throw DFUPackageError.unsupported("it updates the \(info.type == .bootloader ? "bootloader" : "SoftDevice"); Sibyl installs application firmware only")
        }
        guard Int(info.applicationSize) == firmware.count else {
            throw DFUPackageError.mismatch("the image has \(firmware.count) bytes but its init packet says \(info.applicationSize)")
        }
        if info.hashType == .sha256, info.hash != InitPacket.sha256(of: firmware) {
            throw DFUPackageError.mismatch("the image's SHA-256 differs from the one in its init packet")
        }
        self.initPacket = initPacket
        self.firmware = firmware
        self.info = info
        self.version = version ?? DFUPackage.embeddedVersion(in: firmware)
    }

    /// A package from the bytes of its zip.
    public init(zip: Data, version: String? = nil) throws {
        let archive: Archive
        do {
            archive = try Archive(data: zip, accessMode: .read)
        } catch {
            throw DFUPackageError.notAPackage("it is not a zip file")
        }
        func contents(_ name: String) throws -> Data {
            guard let entry = archive[name] else { throw DFUPackageError.notAPackage("it has no \(name)") }
            var out = Data()
            do {
                _ = try archive.extract(entry, skipCRC32: false) { out.append($0) }
            } catch {
                throw DFUPackageError.mismatch("\(name) does not unpack (\(error))")
            }
            return out
        }
        let manifestData = try contents("manifest.json")
        let manifestObject = try? JSONSerialization.jsonObject(with: manifestData)
        guard let manifest = (manifestObject as? [String: Any])?["manifest"] as? [String: Any] else {
            throw DFUPackageError.notAPackage("manifest.json has no \"manifest\" object")
        }
        guard let application = manifest["application"] as? [String: Any] else {
            let parts = manifest.keys.sorted().joined(separator: ", ")
            throw DFUPackageError.unsupported("it holds \(parts.isEmpty ? "no image" : parts), not an application image")
        }
        let others = manifest.keys.filter { $0 != "application" }
        guard others.isEmpty else {
            throw DFUPackageError.unsupported("besides the application it updates \(others.sorted().joined(separator: ", ")); use Nordic's tools for that")
        }
        guard let binName = application["bin_file"] as? String, let datName = application["dat_file"] as? String else {
            throw DFUPackageError.notAPackage("its manifest does not name the application's bin_file and dat_file")
        }
        try self.init(initPacket: try contents(datName), firmware: try contents(binName), version: version)
    }

    /// A package from a zip file on disk.
    public init(contentsOf url: URL, version: String? = nil) throws {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw DFUPackageError.unreadable("\(url.path) does not exist or cannot be read")
        }
        try self.init(zip: data, version: version)
    }

    /// The first `vYY.DDD.HHMM` string in an image (how the firmware stores `device.VERSION`).
    public static func embeddedVersion(in image: Data) -> String? {
        let bytes = [UInt8](image)
        let pattern: [UInt8?] = [UInt8(ascii: "v"), nil, nil, UInt8(ascii: "."), nil, nil, nil, UInt8(ascii: "."), nil, nil, nil, nil]
        guard bytes.count >= pattern.count else { return nil }
        search: for start in 0...(bytes.count - pattern.count) where bytes[start] == UInt8(ascii: "v") {
            for (offset, expected) in pattern.enumerated() {
                let byte = bytes[start + offset]
                if let expected { if byte != expected { continue search } } else if !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { continue search }
            }
            // A whole C string, not part of a longer one.
            let end = start + pattern.count
            if end < bytes.count, bytes[end] != 0 { continue }
            if start > 0, bytes[start - 1] != 0, (0x21...0x7E).contains(bytes[start - 1]) { continue }
            return String(decoding: bytes[start..<end], as: UTF8.self)
        }
        return nil
    }
}
