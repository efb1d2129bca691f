public import Foundation
public import Monocle
public import SecureDFU
public import SibylCore

/// A firmware package and, for Monocle, an FPGA image to install on glasses, checked before any
/// byte is sent: the package must be a whole Nordic DFU package that says (or is told) which
/// version it holds, and the FPGA image must come with the version it reports once written. What
/// the browser uploads becomes one of these, and a glasses session given it installs both, firmware
/// first (``apply(to:bootloader:)``).
public struct GlassesUpdate: Sendable {
    /// Why an update cannot be used, in words for the person who chose the files.
    public struct Invalid: Error, LocalizedError, Sendable, Equatable {
        /// What was given, by the names of the upload's fields.
        public enum Field: String, Sendable {
            case firmware, firmwareVersion, fpga, fpgaVersion
        }

        public var reason: String
        /// The field to correct, when one is to blame.
        public var field: Field?
        public var errorDescription: String? { reason }

        init(_ reason: String, field: Field? = nil) {
            self.reason = reason
            self.field = field
        }
    }

    /// Which glasses it is for.
    public var kind: GlassesKind
    public var firmware: DFUPackage?
    public var fpga: FPGAImage?

    /// Reads and checks the files: `firmwareZip` a DFU package (its version found in the image
    /// unless `firmwareVersion` gives it), `fpgaImage` a Monocle FPGA image with the version it reports.
    public init(kind: GlassesKind, firmwareZip: Data?, firmwareVersion: String? = nil, fpgaImage: Data? = nil, fpgaVersion: String? = nil) throws(Invalid) {
        self.kind = kind
        guard firmwareZip != nil || fpgaImage != nil else {
            throw Invalid("Choose a firmware package (.zip)\(kind == .monocle ? ", an FPGA image (.bin), or both" : "").", field: .firmware)
        }
        if let firmwareVersion, DFUPackage.embeddedVersion(in: Data(firmwareVersion.utf8)) != firmwareVersion {
            throw Invalid("The firmware version must look like v23.248.0754, not \"\(firmwareVersion.prefix(40))\".", field: .firmwareVersion)
        }
        if let firmwareZip {
            let package: DFUPackage
            do {
                package = try DFUPackage(zip: firmwareZip, version: firmwareVersion)
            } catch {
                throw Invalid(error.localizedDescription, field: .firmware)
            }
            guard package.version != nil else {
                throw Invalid("Cannot tell which firmware version the package holds: give it (such as v23.248.0754).", field: .firmwareVersion)
            }
            firmware = package
        }
        if let fpgaImage {
            guard kind == .monocle else { throw Invalid("Frame has no FPGA image to write: the FPGA image is for Monocle.", field: .fpga) }
            guard !fpgaImage.isEmpty else { throw Invalid("The FPGA image is empty.", field: .fpga) }
            guard let fpgaVersion, RawREPL.version(in: fpgaVersion) == fpgaVersion else {
                throw Invalid("An FPGA image needs the version it reports once written, such as v23.230.0808.", field: .fpgaVersion)
            }
            fpga = FPGAImage(data: fpgaImage, version: fpgaVersion)
        } else if fpgaVersion != nil {
            throw Invalid("An FPGA version was given without an FPGA image.", field: .fpga)
        }
    }

    /// Makes a glasses session install the update: the firmware through `bootloader` (waiting long
    /// for it, as a person may first have to choose it in the browser), then the FPGA image.
    public func apply(to options: inout GlassesSessionOptions, bootloader: any DFUTransport) {
        if let firmware {
            options.connection.firmwarePackage = firmware
            options.connection.bootloader = bootloader
            options.connection.dfu.findTimeout = .seconds(180)
            options.connection.dfu.responseTimeout = .seconds(30)
        }
        if let fpga { options.monocle.fpgaImage = fpga }
    }
}
