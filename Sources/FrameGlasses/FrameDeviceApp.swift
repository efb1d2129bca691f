import Crypto
public import Foundation

/// A Lua app for Frame: the files to upload and the version that identifies them.
///
/// The version is a SHA-256 over each file's name and contents. It is uploaded last, as the file
/// `sibyl_version.lua` (`return "sha256:…"`), so glasses that hold it hold the whole app; a
/// connection that finds the same version skips the upload.
public struct FrameDeviceApp: Sendable, Hashable {
    public struct File: Sendable, Hashable {
        public var name: String
        public var contents: Data

        public init(name: String, contents: Data) {
            self.name = name
            self.contents = contents
        }
    }

    /// The module the version is kept in.
    public static let versionModule = "sibyl_version"
    /// Prints the installed version, or `-` when there is none.
    public static let versionQuery = "local ok,v=pcall(require,'\(versionModule)');print(ok and type(v)=='string' and v or '-')"

    /// The app's files in upload order (`main.lua` last of them), then the version file.
    public let files: [File]
    /// `sha256:` and 64 hex digits.
    public let version: String
    /// The module `require` starts (the app's main loop).
    public let entry: String
    /// What the app prints once its loop runs; nil when it prints nothing (then `require` is not awaited).
    public let readyLine: String?

    public init(files: [File], entry: String, readyLine: String?) throws(FrameDeviceAppError) {
        for file in files where !Self.isPlainName(file.name) {
            throw .badFileName(file.name)
        }
        guard files.contains(where: { $0.name == "\(entry).lua" }) else { throw .noEntry(entry) }
        let ordered = files.filter { $0.name != "main.lua" }.sorted { $0.name < $1.name } + files.filter { $0.name == "main.lua" }
        var hasher = SHA256()
        for file in ordered {
            hasher.update(data: Data(file.name.utf8))
            hasher.update(data: file.contents)
        }
        let version = "sha256:" + hasher.finalize().map { String(format: "%02x", $0) }.joined()
        self.version = version
        self.files = ordered + [File(name: "\(Self.versionModule).lua", contents: Data("return \"\(version)\"\n".utf8))]
        self.entry = entry
        self.readyLine = readyLine
    }

    /// Every `.lua` file in a directory (not its subdirectories); `main.lua`'s module starts it.
    public init(directory: URL, entry: String = "main", readyLine: String? = nil) throws(FrameDeviceAppError) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".lua") }
        } catch {
            throw .unreadable(directory.path, error.localizedDescription)
        }
        var files: [File] = []
        for name in names.sorted() {
            let url = directory.appendingPathComponent(name)
            guard let data = FileManager.default.contents(atPath: url.path) else { throw .unreadable(url.path, "cannot read the file") }
            files.append(File(name: name, contents: data))
        }
        try self.init(files: files, entry: entry, readyLine: readyLine)
    }

    /// Sibyl's own app: tap to speak, tap to stop, double-tap for a photo, answers that scroll.
    public static func sibyl() -> FrameDeviceApp {
        // The embedded files are fixed at build time; a test checks they make an app.
        try! FrameDeviceApp(
            files: [
                File(name: "main.lua", contents: Data(PackageResources.main_lua)),
                File(name: "sibyl_frame.lua", contents: Data(PackageResources.sibyl_frame_lua)),
            ],
            entry: "sibyl_frame",
            readyLine: SibylFrameApp.readyLine
        )
    }

    /// Total bytes uploaded.
    public var byteCount: Int { files.reduce(0) { $0 + $1.contents.count } }

    static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 40 && name.hasSuffix(".lua")
            && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "." || $0 == "-") }
    }
}

/// Why a Frame app cannot be uploaded.
public enum FrameDeviceAppError: Error, Equatable, LocalizedError {
    case badFileName(String)
    case noEntry(String)
    case unreadable(String, String)

    public var errorDescription: String? {
        switch self {
        case .badFileName(let name): "\(name) is not a name Frame's flash takes (letters, digits, _ . -, ending in .lua, at most 40 characters)."
        case .noEntry(let entry): "The app has no \(entry).lua to start."
        case .unreadable(let path, let reason): "Cannot read \(path): \(reason)."
        }
    }
}
