import Foundation

/// Keeps the bytes of large attachments as files, so the database stays small and fast to copy.
struct AttachmentFiles: Sendable {
    /// Attachments up to this size stay in the database: below it, a BLOB is cheaper than a file.
    static let inlineLimit = 256 * 1024

    let directory: URL

    init(directory: String) throws {
        self.directory = URL(fileURLWithPath: directory, isDirectory: true)
        do {
            // Owner-only: attachments are the user's photos and recordings.
            try FileManager.default.createDirectory(
                at: self.directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]
            )
        } catch {
            throw StorageError.cannotWriteAttachment(path: directory, reason: error.localizedDescription)
        }
    }

    /// Writes bytes to a new file and returns its name relative to the directory.
    ///
    /// Every write gets a fresh name, so a write never replaces a file another row points to,
    /// and a rolled-back transaction only leaves behind files that `remove` can clean up.
    func write(_ data: Data) throws -> String {
        let name = UUID().storageKey
        let url = directory.appendingPathComponent(name, isDirectory: false)
        do {
            try data.write(to: url, options: .atomic)
        } catch {
            throw StorageError.cannotWriteAttachment(path: url.path, reason: error.localizedDescription)
        }
        return name
    }

    /// Reads the bytes of the attachment stored under `path`.
    func read(_ path: String, attachmentID: UUID) throws -> Data {
        let url = try location(of: path)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw StorageError.attachmentMissing(attachmentID, path: url.path)
        }
        return data
    }

    /// Deletes files, ignoring those already gone: the rows pointing to them are deleted already.
    func remove(_ paths: some Sequence<String>) {
        for path in paths {
            guard let url = try? location(of: path) else { continue }
            try? FileManager.default.removeItem(at: url)
        }
    }

    /// Names of the plain files in the directory last modified before `cutoff`.
    func names(modifiedBefore cutoff: Date) throws -> [String] {
        let keys: [URLResourceKey] = [.contentModificationDateKey, .isRegularFileKey]
        let urls: [URL]
        do {
            urls = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: keys)
        } catch {
            throw StorageError.cannotWriteAttachment(path: directory.path, reason: error.localizedDescription)
        }
        return urls.compactMap { url in
            guard let values = try? url.resourceValues(forKeys: Set(keys)), values.isRegularFile == true,
                  let modified = values.contentModificationDate, modified < cutoff
            else { return nil }
            return url.lastPathComponent
        }
    }

    /// The file for a stored path; paths never leave the directory, whatever the database says.
    private func location(of path: String) throws -> URL {
        guard !path.isEmpty, !path.contains("/"), !path.contains("\\"), path != ".", path != ".." else {
            throw StorageError.corruptRecord("attachment path '\(path)' is not a plain file name")
        }
        return directory.appendingPathComponent(path, isDirectory: false)
    }
}
