import Foundation
import SibylCore

/// Turns what the user typed (files, folders, glob patterns) into the files to ingest.
public enum FileDiscovery {
    /// File extensions the knowledge base reads.
    public static let supportedExtensions = ExtractedDocument.Format.readableExtensions

    /// What was found: files to ingest, and inputs that matched nothing.
    public struct Result: Sendable {
        public var files: [URL]
        /// Inputs that do not exist or match no file, with why.
        public var problems: [(input: String, reason: String)]
        /// Files skipped because of their extension.
        public var skipped: [URL]
    }

    /// Expands folders recursively (hidden entries skipped) and `*`/`?`/`[…]` globs; keeps input order, no duplicates.
    public static func files(from inputs: [String], relativeTo base: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)) -> Result {
        var files: [URL] = []
        var seen = Set<String>()
        var problems: [(String, String)] = []
        var skipped: [URL] = []
        func add(_ url: URL, explicitly: Bool) {
            let path = url.standardizedFileURL.path
            guard seen.insert(path).inserted else { return }
            if supportedExtensions.contains(url.pathExtension.lowercased()) {
                files.append(URL(fileURLWithPath: path))
            } else if explicitly {
                // An explicitly named file is tried anyway: the extractor will say what is wrong with it.
                files.append(URL(fileURLWithPath: path))
            } else {
                skipped.append(url)
            }
        }
        for input in inputs {
            let expanded = (input as NSString).expandingTildeInPath
            let url = expanded.hasPrefix("/") ? URL(fileURLWithPath: expanded) : base.appendingPathComponent(expanded)
            if input.contains(where: { "*?[".contains($0) }) {
                let matches = glob(url.path)
                if matches.isEmpty { problems.append((input, "matches no file")) }
                for match in matches { walk(match, add: add) }
                continue
            }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
                problems.append((input, "no such file or folder"))
                continue
            }
            if isDirectory.boolValue { walk(url, add: add) } else { add(url, explicitly: true) }
        }
        return Result(files: files, problems: problems, skipped: skipped)
    }

    private static func walk(_ url: URL, add: (URL, Bool) -> Void) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { return }
        guard isDirectory.boolValue else {
            add(url, false)
            return
        }
        guard let enumerator = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles]) else { return }
        var found: [URL] = []
        for case let file as URL in enumerator where (try? file.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
            found.append(file)
        }
        for file in found.sorted(by: { $0.path < $1.path }) { add(file, false) }
    }

    /// Paths matching a glob pattern (`**` is not special; `*` does not cross `/`).
    static func glob(_ pattern: String) -> [URL] {
        var result = glob_t()
        defer { globfree(&result) }
        guard Foundation.glob(pattern, 0, nil, &result) == 0 else { return [] }
        return (0..<Int(result.gl_pathc)).compactMap { index in
            result.gl_pathv[index].map { URL(fileURLWithPath: String(cString: $0)) }
        }
    }
}
