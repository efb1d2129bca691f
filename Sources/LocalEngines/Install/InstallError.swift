import Foundation

/// Why an install could not be completed, in words that say what to do.
public enum InstallError: Error, LocalizedError, Equatable {
    case unknownComponent(String, known: [String])
    case checksumMismatch(file: String, expected: String, actual: String)
    case sizeMismatch(file: String, expected: Int64, actual: Int64)
    case notOnIndex(file: String, index: String)
    case downloadFailed(file: String, reason: String)
    case missingLocalFile(file: String, directory: String)
    case commandFailed(command: String, status: Int32, logTail: String, log: String)
    case missingTool(String, package: String)
    case debianPackagesNeeded([String], command: String)
    case corruptArchive(file: String, reason: String)
    case lockUnavailable(path: String, reason: String)

    public var errorDescription: String? {
        switch self {
        case .unknownComponent(let name, let known):
            "There is no component '\(name)'. Components: \(known.joined(separator: ", ")), or all."
        case .checksumMismatch(let file, let expected, let actual):
            "\(file) is corrupt: its sha256 is \(actual.prefix(16))…, the manifest pins \(expected.prefix(16))…. It was not installed."
        case .sizeMismatch(let file, let expected, let actual):
            "\(file) is corrupt: it has \(actual) bytes, the manifest pins \(expected). It was not installed."
        case .notOnIndex(let file, let index):
            "\(file) is not listed on the package index \(index)."
        case .downloadFailed(let file, let reason):
            "Downloading \(file) failed: \(reason)"
        case .missingLocalFile(let file, let directory):
            "\(file) is not in \(directory)."
        case .commandFailed(let command, let status, let tail, let log):
            "`\(command)` failed with status \(status). Last lines:\n\(tail)\nFull log: \(log)"
        case .missingTool(let tool, let package):
            "\(tool) is needed but not installed (Debian package \(package))."
        case .debianPackagesNeeded(let packages, let command):
            "Debian packages are missing: \(packages.joined(separator: ", ")). Install them with: \(command)"
        case .corruptArchive(let file, let reason):
            "\(file) cannot be unpacked: \(reason)"
        case .lockUnavailable(let path, let reason):
            "The install lock \(path) cannot be taken: \(reason)"
        }
    }

    public var recoverySuggestion: String? {
        switch self {
        case .checksumMismatch, .sizeMismatch:
            "Run the install again to download a fresh copy; with --from, replace the file in that directory."
        case .downloadFailed, .notOnIndex:
            "Check the network (or SIBYL_PYPI_INDEX), or copy the pinned files onto this machine and install from that directory."
        case .missingLocalFile:
            "Put every file the manifest names in that directory (the list of models with its files shows them)."
        default:
            nil
        }
    }
}
