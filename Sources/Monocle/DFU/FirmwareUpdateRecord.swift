import Foundation

/// What a glasses controller keeps about firmware updates across connections: one Secure DFU
/// client (it resumes a transfer the bootloader still holds), the tries made, the version tried,
/// and the last whole percent reported. Monocle's and Frame's controllers share it.
public struct FirmwareUpdateRecord: Sendable {
    /// Installs started on this run.
    public private(set) var tries = 0
    /// The version the last install was for.
    public private(set) var attemptedVersion: String?
    private var client: SecureDFUClient?
    private var reportedPercent = -1

    public init() {}

    /// Counts a new try at `package` and returns the client to send it with.
    public mutating func begin(_ package: DFUPackage, bootloader: any DFUTransport, options: SecureDFUClient.Options) -> SecureDFUClient {
        tries += 1
        attemptedVersion = package.version
        let client = client ?? SecureDFUClient(transport: bootloader, options: options)
        self.client = client
        return client
    }

    /// Ends a try: the next progress report starts afresh.
    public mutating func end() {
        reportedPercent = -1
    }

    /// Whether `fraction` reaches a whole percent not reported yet (and notes it).
    public mutating func isNewPercent(_ fraction: Double) -> Bool {
        let percent = Int(fraction * 100)
        guard percent != reportedPercent else { return false }
        reportedPercent = percent
        return true
    }

    /// What to tell the user about `progress`: a dropped bootloader link, or a resumed transfer.
    public static func notice(for progress: DFUProgress) -> String? {
        switch progress.phase {
        case .connecting(let attempt) where attempt > 1:
            "the bootloader's link dropped; connecting again (attempt \(attempt))"
        case .resuming(let offset):
            "resuming the firmware update at byte \(offset) of \(progress.totalBytes)"
        default:
            nil
        }
    }

    /// Whether the glasses wait in their bootloader for `package`, with tries left.
    public func bootloaderWaits(for package: DFUPackage?, bootloader: (any DFUTransport)?, attempts: Int) async -> Bool {
        guard package != nil, let bootloader, tries < attempts else { return false }
        return await bootloader.bootloaderInReach()
    }
}
