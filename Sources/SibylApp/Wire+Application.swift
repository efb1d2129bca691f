public import Assistant
import Foundation
public import LocalEngines
import SibylCore

// The wire forms of what only the application knows: local engine components and installs, and
// the provider check.

extension Wire.ModelComponent {
    public init(_ status: ComponentStatus) {
        self.init(name: status.name, title: status.title, installed: status.installed, missing: status.missing, bytesOnDisk: status.bytesOnDisk)
    }
}

extension Wire.InstallProgress {
    public init(_ event: InstallEvent) {
        switch event {
        case .step(let text): self.init(type: "step", text: text)
        case .progress(let fraction, let detail): self.init(type: "progress", text: detail.isEmpty ? nil : detail, fraction: fraction)
        case .output(let text): self.init(type: "output", text: text)
        case .skipped(let text): self.init(type: "skipped", text: text)
        case .finished(let text): self.init(type: "finished", text: text)
        }
    }
}

extension Wire.InstallReport {
    public init(_ summary: InstallSummary) {
        self.init(installed: summary.installed, alreadyInstalled: summary.alreadyInstalled)
    }
}

extension Wire.ProviderCheck {
    public init(_ row: ProviderCheckRow) {
        self.init(
            capability: row.probe.rawValue, provider: row.capability.rawValue, using: row.provider.isLocal ? "local" : "remote",
            why: row.provider.choice, localEngine: row.localEngine.map { $0.installed ? "installed" : "missing" } ?? "none",
            baseUrl: row.provider.baseURL, model: row.provider.model, key: row.provider.apiKey == nil ? "none" : row.provider.keySource,
            state: row.status.state.rawValue, detail: row.status.detail, latencyMs: row.status.latency?.milliseconds
        )
    }
}
