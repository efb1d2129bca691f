import Foundation
import Synchronization

/// Installs Debian packages Sibyl's engines need, when they are missing.
enum DebianPackages {
    static func missing(_ packages: [String]) -> [String] {
        packages.filter { !isInstalled($0) }
    }

    /// Packages seen installed: a server checks its engines on every request, and dpkg-query is a
    /// process each time; an installed package stays installed for the life of the process.
    private static let seenInstalled = Mutex<Set<String>>([])

    static func isInstalled(_ package: String) -> Bool {
        if seenInstalled.withLock({ $0.contains(package) }) { return true }
        let installed = queryInstalled(package)
        if installed { seenInstalled.withLock { _ = $0.insert(package) } }
        return installed
    }

    private static func queryInstalled(_ package: String) -> Bool {
        guard let answer = CommandRunner.capture("/usr/bin/dpkg-query", ["-W", "-f=${Status}", package]) else { return false }
        return String(decoding: answer.output, as: UTF8.self).contains("install ok installed")
    }

    /// Installs the missing packages with apt-get: directly as root, through sudo when it needs no
    /// password; otherwise throws with the command for the user to run.
    static func ensure(_ packages: [String], log: URL, observer: @escaping InstallObserver) async throws {
        let missing = missing(packages)
        guard !missing.isEmpty else { return }
        let command = "sudo apt-get install -y \(missing.joined(separator: " "))"
        let prefix: [String]
        if getuid() == 0 {
            prefix = []
        } else if (try? await CommandRunner.run("sudo", ["-n", "true"], log: log)) != nil {
            prefix = ["sudo", "-n"]
        } else {
            throw InstallError.debianPackagesNeeded(missing, command: command)
        }
        observer(.step("Installing Debian packages: \(missing.joined(separator: ", "))"))
        let environment = ["DEBIAN_FRONTEND": "noninteractive"]
        let tool = prefix.first ?? "apt-get"
        let head = prefix.isEmpty ? [] : Array(prefix.dropFirst()) + ["apt-get"]
        if (try? await CommandRunner.run(tool, head + ["install", "-y", "-q"] + missing, log: log, environment: environment)) == nil {
            // The package lists may be stale or absent on a fresh machine.
            try await CommandRunner.run(tool, head + ["update", "-q"], log: log, environment: environment)
            try await CommandRunner.run(tool, head + ["install", "-y", "-q"] + missing, log: log, environment: environment) { line in
                observer(.output(line))
            }
        }
        let still = Self.missing(missing)
        guard still.isEmpty else { throw InstallError.debianPackagesNeeded(still, command: command) }
        observer(.finished("Debian packages: \(missing.joined(separator: ", "))"))
    }
}
