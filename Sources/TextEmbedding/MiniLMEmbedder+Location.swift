public import Foundation

extension MiniLMEmbedder {
    /// Where the model is looked for: `$SIBYL_MINILM_DIR`, else
    /// `$SIBYL_ENGINES/models/all-MiniLM-L6-v2`, else `~/.cache/sibyl/engines/models/all-MiniLM-L6-v2`.
    public static func defaultModelDirectory(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> URL {
        if let directory = environment["SIBYL_MINILM_DIR"], !directory.isEmpty {
            return URL(fileURLWithPath: directory, isDirectory: true)
        }
        if let engines = environment["SIBYL_ENGINES"], !engines.isEmpty {
            return URL(fileURLWithPath: engines, isDirectory: true)
                .appendingPathComponent("models", isDirectory: true)
                .appendingPathComponent(modelName, isDirectory: true)
        }
        let home = environment["HOME"].map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.homeDirectoryForCurrentUser
        return home
            .appendingPathComponent(".cache/sibyl/engines/models", isDirectory: true)
            .appendingPathComponent(modelName, isDirectory: true)
    }

    /// Whether `directory` holds both files the embedder loads.
    public static func isModelInstalled(at directory: URL) -> Bool {
        [weightsFileName, vocabularyFileName].allSatisfy { name in
            FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path)
        }
    }
}
