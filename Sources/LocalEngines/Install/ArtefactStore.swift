import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import Synchronization

/// Fetches pinned downloads into the cache, verifying size and sha256 before anything uses them.
struct ArtefactStore: Sendable {
    let layout: EngineLayout
    /// A directory holding the files already (air-gapped installs); nothing is downloaded then.
    let localSource: URL?
    /// A PEP 691 package index (JSON simple API).
    let index: String
    let observer: InstallObserver
    /// Downloads already verified by this process, so several outputs of one file hash it once.
    let verified = VerifiedFiles()

    static func defaultIndex(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        var index = environment["SIBYL_PYPI_INDEX"] ?? environment["PIP_INDEX_URL"] ?? "https://pypi.org/simple"
        while index.hasSuffix("/") { index.removeLast() }
        return index
    }

    /// The verified local copy of a download, fetching it when needed.
    func fetch(_ download: EngineManifest.Download) async throws -> URL {
        let cached = layout.downloads.appendingPathComponent(download.file)
        if verified.contains(download.sha256), FileManager.default.fileExists(atPath: cached.path) { return cached }
        if FileManager.default.fileExists(atPath: cached.path) {
            if try verify(cached, against: download, deleteOnMismatch: true) {
                verified.insert(download.sha256)
                observer(.skipped("\(download.file) (downloaded earlier)"))
                return cached
            }
        }
        try FileManager.default.createDirectory(at: layout.downloads, withIntermediateDirectories: true)
        let partial = layout.downloads.appendingPathComponent(download.file + ".partial")
        try? FileManager.default.removeItem(at: partial)
        if let localSource {
            let source = localSource.appendingPathComponent(download.file)
            guard FileManager.default.fileExists(atPath: source.path) else {
                throw InstallError.missingLocalFile(file: download.file, directory: localSource.path)
            }
            observer(.step("Copying \(download.file) from \(localSource.path)"))
            try FileManager.default.copyItem(at: source, to: partial)
        } else {
            observer(.step("Downloading \(download.file) (\(Self.megabytes(download.size)))"))
            try await downloadFile(download, to: partial)
        }
        _ = try verify(partial, against: download, deleteOnMismatch: true, throwing: true)
        try? FileManager.default.removeItem(at: cached)
        try FileManager.default.moveItem(at: partial, to: cached)
        verified.insert(download.sha256)
        observer(.finished(download.file))
        return cached
    }

    /// Checks a file's size and sha256; a mismatching file is removed so it is never used.
    @discardableResult
    func verify(_ url: URL, against download: EngineManifest.Download, deleteOnMismatch: Bool, throwing: Bool = false) throws -> Bool {
        let size = Checksum.size(of: url) ?? -1
        guard size == download.size else {
            if deleteOnMismatch { try? FileManager.default.removeItem(at: url) }
            if throwing { throw InstallError.sizeMismatch(file: download.file, expected: download.size, actual: size) }
            return false
        }
        observer(.step("Verifying \(download.file)"))
        let total = Double(download.size)
        let digest = try Checksum.sha256(of: url) { done in
            observer(.progress(Double(done) / total, detail: "sha256 \(Self.megabytes(done)) / \(Self.megabytes(download.size))"))
        }
        guard digest == download.sha256 else {
            if deleteOnMismatch { try? FileManager.default.removeItem(at: url) }
            if throwing { throw InstallError.checksumMismatch(file: download.file, expected: download.sha256, actual: digest) }
            return false
        }
        return true
    }

    private func downloadFile(_ download: EngineManifest.Download, to destination: URL) async throws {
        let url = try await fileURL(for: download)
        var request = HTTPClientRequest(url: url)
        request.method = .GET
        let response: HTTPClientResponse
        do {
            response = try await HTTPClient.shared.execute(request, timeout: .hours(2))
        } catch {
            throw InstallError.downloadFailed(file: download.file, reason: String(describing: error))
        }
        guard response.status.code == 200 else {
            throw InstallError.downloadFailed(file: download.file, reason: "HTTP \(response.status.code) from \(url)")
        }
        _ = FileManager.default.createFile(atPath: destination.path, contents: nil)
        let handle = try FileHandle(forWritingTo: destination)
        defer { try? handle.close() }
        var received: Int64 = 0
        var lastReport = ContinuousClock.now
        do {
            for try await buffer in response.body {
                handle.write(Data(buffer: buffer))
                received += Int64(buffer.readableBytes)
                if ContinuousClock.now - lastReport > .milliseconds(200) {
                    lastReport = .now
                    observer(.progress(Double(received) / Double(download.size), detail: "\(Self.megabytes(received)) / \(Self.megabytes(download.size))"))
                }
            }
        } catch {
            throw InstallError.downloadFailed(file: download.file, reason: "the connection broke after \(Self.megabytes(received)) (\(error))")
        }
        observer(.progress(1, detail: Self.megabytes(received)))
    }

    /// Looks the file up on the package index (PEP 691 JSON), which also names the files' own hashes.
    private func fileURL(for download: EngineManifest.Download) async throws -> String {
        let project = download.pypi.lowercased().replacingOccurrences(of: "_", with: "-").replacingOccurrences(of: ".", with: "-")
        var request = HTTPClientRequest(url: "\(index)/\(project)/")
        request.headers.add(name: "Accept", value: "application/vnd.pypi.simple.v1+json")
        do {
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
            guard response.status.code == 200 else {
                throw InstallError.downloadFailed(file: download.file, reason: "the index answered HTTP \(response.status.code) for \(project)")
            }
            let body = try await response.body.collect(upTo: 32 << 20)
            let listing = try JSONDecoder().decode(SimpleIndexPage.self, from: Data(buffer: body))
            guard let file = listing.files.first(where: { $0.filename == download.file }) else {
                throw InstallError.notOnIndex(file: download.file, index: index)
            }
            return file.url
        } catch let error as InstallError {
            throw error
        } catch {
            throw InstallError.downloadFailed(file: download.file, reason: "looking it up on \(index) failed: \(error)")
        }
    }

    static func megabytes(_ bytes: Int64) -> String {
        String(format: "%.1f MB", Double(bytes) / 1_000_000)
    }
}

/// Checksums verified during this run.
final class VerifiedFiles: Sendable {
    private let digests = Mutex<Set<String>>([])

    func contains(_ digest: String) -> Bool { digests.withLock { $0.contains(digest) } }
    func insert(_ digest: String) { _ = digests.withLock { $0.insert(digest) } }
}

/// A PEP 691 project page.
private struct SimpleIndexPage: Decodable {
    struct File: Decodable {
        var filename: String
        var url: String
    }
    var files: [File]
}
