import Crypto
public import Foundation

/// A MicroPython app for Monocle: the files to upload, in order, and the version that identifies them.
///
/// The version is a SHA-256 over each file's name and escaped contents, defined as
/// `SIBYL_APP_VERSION` at the top of the uploaded `main.py`; a connection that finds the same
/// version on the glasses skips the upload.
public struct DeviceApp: Sendable, Hashable {
    /// One script.
    public struct File: Sendable, Hashable {
        public var name: String
        public var contents: String

        public init(name: String, contents: String) {
            self.name = name
            self.contents = contents
        }
    }

    /// The global the uploaded `main.py` defines.
    public static let versionVariable = "SIBYL_APP_VERSION"

    /// The scripts in upload order; `main.py` comes last, so the app never starts half-uploaded.
    public let files: [File]
    /// `sha256:` and 64 hex digits.
    public let version: String

    /// An app from scripts; there must be a `main.py`.
    public init(files: [File]) throws {
        guard let main = files.first(where: { $0.name == "main.py" }) else {
            throw DeviceAppError.noMainFile
        }
        for file in files where !Self.isPlainName(file.name) {
            throw DeviceAppError.badFileName(file.name)
        }
        let ordered = files.filter { $0.name != "main.py" }.sorted { $0.name < $1.name } + [main]
        self.files = ordered
        var hasher = SHA256()
        for file in ordered {
            hasher.update(data: Data(file.name.utf8))
            hasher.update(data: Data(Self.escape(file.contents).utf8))
        }
        version = "sha256:" + hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// Every `.py` file in a directory (not its subdirectories).
    public init(directory: URL) throws {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".py") }
        } catch {
            throw DeviceAppError.unreadable(directory.path, error.localizedDescription)
        }
        let files = try names.map { name in
            let url = directory.appendingPathComponent(name)
            guard let data = FileManager.default.contents(atPath: url.path) else { throw DeviceAppError.unreadable(url.path, "cannot read the file") }
            guard let text = String(data: data, encoding: .utf8) else { throw DeviceAppError.unreadable(url.path, "not UTF-8 text") }
            return File(name: name, contents: text)
        }
        try self.init(files: files)
    }

    /// The total size of the scripts in bytes.
    public var byteCount: Int { files.reduce(0) { $0 + $1.contents.utf8.count } }

    /// The REPL commands that write the app, one per file: `main.py` gets the version line first.
    public func uploadCommands() -> [(file: String, command: String)] {
        installedFiles().map { file, contents in
            (file, "f=open('\(file)','w');f.write('''\(Self.escape(contents))''');f.close()")
        }
    }

    /// The command whose output is the installed version (a NameError when there is none).
    public static let versionQuery = "print(\(versionVariable))"

    /// Escapes text for a `'''…'''` literal so that Python reads back exactly the original.
    ///
    /// The original apps escaped only line feeds, which silently changed every backslash escape in the
    /// scripts; this escapes backslashes, carriage returns and quotes too.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count + text.utf8.count / 20)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "'": out += "\\'"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && name.hasSuffix(".py") && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == ".") }
    }
}

/// Why a device app cannot be uploaded.
public enum DeviceAppError: Error, Sendable, Equatable, LocalizedError {
    case noMainFile
    case badFileName(String)
    case unreadable(String, String)

    public var errorDescription: String? {
        switch self {
        case .noMainFile: "A Monocle app needs a main.py: the glasses run it at start."
        case .badFileName(let name): "'\(name)' cannot be uploaded: use letters, digits and underscores, ending in .py."
        case .unreadable(let path, let reason): "Cannot read \(path): \(reason)."
        }
    }
}

extension DeviceApp {
    /// The files as they are on the glasses after an upload: `main.py` starts with the version line.
    public func installedFiles() -> [(file: String, contents: String)] {
        files.map { file in
            (file.name, file.name == "main.py" ? "\(Self.versionVariable)=\"\(version)\"\n" + file.contents : file.contents)
        }
    }
}
