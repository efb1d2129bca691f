import SecureDFU

extension GlassesConnection {
    /// Asks the running firmware to restart into the bootloader; the link drops, and the install
    /// starts when it does.
    func enterBootloader(toInstall package: DFUPackage, link: GlassesLink) async throws {
        if let report = installer.awaitBootloader(for: package) { await firmwareReported(report) }
        notice("installing firmware \(package.version ?? "?"): restarting the glasses into their bootloader")
        do {
            try await driver.restartIntoBootloader(link, timeout: options.bootloaderTimeout)
            throw GlassesError.unexpectedReply(waitingFor: "the glasses to restart into their bootloader", got: "no restart")
        } catch GlassesError.disconnected {
            throw GlassesError.disconnected("restarting into the bootloader")
        } catch {
            installer.stopWaiting()
            throw error
        }
    }

    /// Starts installing `package` through the bootloader (unless an install runs).
    func startFirmwareUpdate(_ package: DFUPackage) {
        guard let bootloader = options.bootloader else { return }
        installer.start(package, bootloader: bootloader, options: options.dfu) { report in await self.firmwareReported(report) }
    }

    func firmwareReported(_ report: FirmwareInstaller.Report) async {
        switch report {
        case .progress(let fraction):
            machine.updatingFirmware(fraction)
            publish()
        case .notice(let text):
            notice(text)
        case .failed(let reason):
            continuation.yield(.updateFailed(reason))
        case .ended(let reason):
            guard !stopped else { return }
            machine.updateEnded(reason: reason)
            publish()
            await connect()
        }
    }

    /// Whether the glasses wait in their bootloader, when a firmware package is given (and tries are left).
    func bootloaderIsWaiting() async -> Bool {
        await installer.bootloaderWaits(for: options.firmwarePackage, bootloader: options.bootloader, attempts: options.firmwareAttempts)
    }
}
