import Foundation
public import SecureDFU
import Synchronization

/// A connection's firmware installs through the glasses' bootloader (Nordic Secure DFU): the
/// package waiting for the glasses to restart into their bootloader, the install under way, one client kept across connections (it resumes a
/// transfer the bootloader still holds), the tries made, the version tried, and progress reported
/// once per whole percent.
public final class FirmwareInstaller: Sendable {
    /// What an install tells its connection, in order.
    public enum Report: Sendable, Equatable {
        /// A whole percent not reported yet (0 as an install begins).
        case progress(Double)
        /// Something to tell the user: a dropped bootloader link, a resumed transfer, the install done.
        case notice(String)
        /// The install failed, and why.
        case failed(String)
        /// The install is over and the link stays down until the glasses restart (`reason` says into
        /// what): the connection connects again.
        case ended(reason: String)
    }

    private struct State {
        var tries = 0
        var attemptedVersion: String?
        var client: SecureDFUClient?
        var reportedPercent = -1
        var waiting: DFUPackage?
        var install: Task<Void, Never>?
    }

    private let state = Mutex(State())
    private let restarts: String

    /// `restarts` is how the notice says the glasses restart: "Frame restarts", "the glasses restart".
    public init(restarts: String) {
        self.restarts = restarts
    }

    /// Installs started on this run.
    public var tries: Int { state.withLock { $0.tries } }
    /// The version the last install was for.
    public var attemptedVersion: String? { state.withLock { $0.attemptedVersion } }
    /// Whether an install is under way.
    public var isInstalling: Bool { state.withLock { $0.install != nil } }

    /// Notes `package` as waiting for the glasses to restart into their bootloader; returns the
    /// report to give first (0 %), unless it was given already.
    public func awaitBootloader(for package: DFUPackage) -> Report? {
        state.withLock { $0.waiting = package }
        return isNewPercent(0) ? .progress(0) : nil
    }

    /// Forgets the waiting package: the glasses refused to restart.
    public func stopWaiting() {
        state.withLock { $0.waiting = nil }
    }

    /// Takes the package that waited for the restart, if one did.
    public func takeWaiting() -> DFUPackage? {
        state.withLock { state in
            defer { state.waiting = nil }
            return state.waiting
        }
    }

    /// Starts installing `package` through `bootloader`, unless an install is under way; `report`
    /// hears how it goes, and `.ended` last.
    public func start(
        _ package: DFUPackage, bootloader: any DFUTransport, options: SecureDFUClient.Options,
        report: @escaping @Sendable (Report) async -> Void
    ) {
        state.withLock { state in
            guard state.install == nil else { return }
            state.tries += 1
            state.attemptedVersion = package.version
            let client = state.client ?? SecureDFUClient(transport: bootloader, options: options)
            state.client = client
            state.install = Task { await self.install(package, with: client, report: report) }
        }
    }

    /// Stops an install under way (the connection stops).
    public func cancel() {
        state.withLock { $0.install }?.cancel()
    }

    /// Whether the glasses wait in their bootloader for `package`, with tries left.
    public func bootloaderWaits(for package: DFUPackage?, bootloader: (any DFUTransport)?, attempts: Int) async -> Bool {
        guard package != nil, let bootloader, tries < attempts else { return false }
        return await bootloader.bootloaderInReach()
    }

    private func install(_ package: DFUPackage, with client: SecureDFUClient, report: @escaping @Sendable (Report) async -> Void) async {
        if isNewPercent(0) { await report(.progress(0)) }
        let version = package.version ?? "?"
        let reason: String
        do {
            try await client.update(package) { progress in
                if let notice = Self.notice(for: progress) { await report(.notice(notice)) }
                if self.isNewPercent(progress.fraction) { await report(.progress(progress.fraction)) }
            }
            reason = "restarting into firmware \(version)"
            await report(.notice("firmware \(version) installed (\(package.firmware.count) bytes); \(restarts) into it"))
        } catch {
            reason = "the firmware update failed"
            await report(.failed(error.localizedDescription))
        }
        state.withLock { state in
            state.install = nil
            state.reportedPercent = -1
        }
        guard !Task.isCancelled else { return }
        await report(.ended(reason: reason))
    }

    /// Whether `fraction` reaches a whole percent not reported yet (and notes it).
    private func isNewPercent(_ fraction: Double) -> Bool {
        let percent = Int(fraction * 100)
        return state.withLock { state in
            guard percent != state.reportedPercent else { return false }
            state.reportedPercent = percent
            return true
        }
    }

    /// What to tell the user about `progress`: a dropped bootloader link, or a resumed transfer.
    static func notice(for progress: DFUProgress) -> String? {
        switch progress.phase {
        case .connecting(let attempt) where attempt > 1:
            "the bootloader's link dropped; connecting again (attempt \(attempt))"
        case .resuming(let offset):
            "resuming the firmware update at byte \(offset) of \(progress.totalBytes)"
        default:
            nil
        }
    }
}
