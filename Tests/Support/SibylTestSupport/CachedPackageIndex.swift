import Foundation
import LocalEngines
import OpenAITestServer

/// A package index (PyPI's JSON simple API) that serves the downloads of one engine component
/// from this machine's engines cache, so that a test can install that component into an empty
/// engines directory, for real, without the network.
public enum CachedPackageIndex {
    /// Whether this machine has `component`'s downloads cached.
    public static func isCached(_ component: String, cache: EngineLayout = EngineLayout()) -> Bool {
        guard let files = downloads(of: component) else { return false }
        return files.allSatisfy { FileManager.default.fileExists(atPath: cache.downloads.appendingPathComponent($0.file).path) }
    }

    private static func downloads(of component: String) -> [EngineManifest.Download]? {
        let manifest = EngineManifest.bundled
        guard let outputs = manifest.components[component]?.outputs else { return nil }
        return Set(outputs.compactMap { manifest.outputs[$0] }.flatMap(\.from)).compactMap { manifest.downloads[$0] }
    }

    /// Serves `component`'s downloads on `server`; returns the index's URL (for `SIBYL_PYPI_INDEX`),
    /// or nil when this machine has not downloaded them (its engines are not installed).
    public static func serve(_ component: String, on server: OpenAITestServer, cache: EngineLayout = EngineLayout()) -> String? {
        guard isCached(component, cache: cache), let downloads = downloads(of: component) else { return nil }
        for download in downloads {
            let file = cache.downloads.appendingPathComponent(download.file)
            let project = download.pypi.lowercased().replacingOccurrences(of: "_", with: "-").replacingOccurrences(of: ".", with: "-")
            server.handle("/simple/\(project)/") { _ in
                .json(object: ["files": [["filename": download.file, "url": "http://127.0.0.1:\(server.port)/files/\(download.file)", "hashes": ["sha256": download.sha256]]]])
            }
            server.handle("/files/\(download.file)") { _ in
                .bytes((try? Data(contentsOf: file, options: .alwaysMapped)) ?? Data(), contentType: "application/octet-stream")
            }
        }
        return "http://127.0.0.1:\(server.port)/simple"
    }
}
