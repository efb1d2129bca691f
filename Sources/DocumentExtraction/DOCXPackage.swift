import Foundation
import ZIPFoundation

/// A DOCX file's zip container, read with limits: a part is inflated only after its declared size
/// and compression ratio pass, and inflation stops as soon as the real size passes the declared one.
struct DOCXPackage {
    private let archive: Archive
    let limits: Limits

    struct Limits {
        /// The most one part (such as `word/document.xml`) may expand to.
        var maxPartSize: Int64
        /// The highest compression ratio allowed for a part over 1 MB.
        var maxCompressionRatio: Double
    }

    init(url: URL, limits: Limits) throws {
        let handle = try? FileHandle(forReadingFrom: url)
        let head = (try? handle?.read(upToCount: 8)) ?? nil
        try? handle?.close()
        guard let head, head.starts(with: [0x50, 0x4B, 0x03, 0x04]) else {
            if let head, head.starts(with: [0xD0, 0xCF, 0x11, 0xE0]) {
                throw ExtractionError.corruptDOCX("it is an old-style .doc file or a password-protected document; save it as .docx without a password")
            }
            throw ExtractionError.corruptDOCX("it is not a zip archive")
        }
        do {
            archive = try Archive(url: url, accessMode: .read)
        } catch {
            throw ExtractionError.corruptDOCX("the zip archive cannot be read")
        }
        self.limits = limits
    }

    func contains(_ path: String) -> Bool { archive[path] != nil }

    /// The inflated bytes of one part, or nil when the archive has no such part.
    func read(_ path: String) throws -> Data? {
        guard let entry = archive[path] else { return nil }
        let declared = entry.uncompressedSize
        let compressed = entry.compressedSize
        guard declared <= UInt64(limits.maxPartSize) else {
            throw ExtractionError.docxTooLarge("\(path) would expand to \(ExtractionError.megabytes(Int64(clamping: declared))), over the \(ExtractionError.megabytes(limits.maxPartSize)) limit")
        }
        if declared > 1_000_000 {
            let ratio = Double(declared) / Double(max(compressed, 1))
            guard ratio <= limits.maxCompressionRatio else {
                throw ExtractionError.docxTooLarge("\(path) is compressed \(Int(ratio)):1, more than the \(Int(limits.maxCompressionRatio)):1 allowed")
            }
        }
        var data = Data()
        data.reserveCapacity(Int(declared))
        let checksum: CRC32
        do {
            checksum = try archive.extract(entry, bufferSize: 64 * 1024) { chunk in
                guard UInt64(data.count + chunk.count) <= declared else {
                    throw ExtractionError.docxTooLarge("\(path) expands beyond the \(ExtractionError.megabytes(Int64(clamping: declared))) its header declares")
                }
                if Task.isCancelled { throw CancellationError() }
                data.append(chunk)
            }
        } catch let error as ExtractionError {
            throw error
        } catch let error as CancellationError {
            throw error
        } catch {
            throw ExtractionError.corruptDOCX("\(path) cannot be inflated")
        }
        guard checksum == entry.checksum, UInt64(data.count) == declared else {
            throw ExtractionError.corruptDOCX("\(path) is damaged (checksum or size mismatch)")
        }
        return data
    }
}
