import Foundation

/// Files of this repository (scripts, fixtures) and of the shared directory beside its checkout,
/// found from wherever a test or benchmark runs.
public enum RepositoryFile {
    /// The first `relativePath` that exists in an ancestor of `sourceFile`'s directory, else of
    /// `workingDirectory`; nil when there is none. `sourceFile` is the caller's own by default, so
    /// a test or benchmark finds the files of the checkout it was built from, wherever it runs.
    public static func locate(
        _ relativePath: String,
        sourceFile: String = #filePath,
        workingDirectory: String = FileManager.default.currentDirectoryPath
    ) -> URL? {
        let starts = [
            URL(fileURLWithPath: sourceFile).deletingLastPathComponent(),
            URL(fileURLWithPath: workingDirectory, isDirectory: true),
        ]
        for start in starts {
            var directory = start.standardizedFileURL
            while true {
                let candidate = directory.appendingPathComponent(relativePath)
                if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
                let parent = directory.deletingLastPathComponent()
                if parent.path == directory.path { break }
                directory = parent
            }
        }
        return nil
    }
}
