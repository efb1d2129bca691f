import Assistant
import LocalEngines
import Foundation
import Synchronization

/// Where an install that a first use started has got to: what pages show in a progress card and
/// terminals in a progress bar.
public struct EngineInstallProgress: Sendable, Hashable {
    public enum State: String, Sendable, Hashable, Codable {
        case running, finished, failed
    }

    /// The component being installed (`embeddings`, `stt` …) and its title for people.
    public var component: String
    public var title: String
    public var state: State
    /// The step under way (downloading a file, building an engine …).
    public var step: String
    /// How far the step has got, 0…1, when known, with a detail such as "120 / 491 MB".
    public var fraction: Double?
    public var detail: String
    /// Why it failed.
    public var problem: String?
}

extension LocalEngineHost {
    /// Makes sure a component is installed before it is used. A missing one is installed now when
    /// `automatically` (`models.auto_install`), with its progress on `installs`; callers that ask
    /// while it installs wait for the same install. Otherwise it fails, naming the install command.
    public func ensureInstalled(_ component: String, automatically: Bool) async throws {
        guard let status = installer.status(of: component), !status.installed else { return }
        guard automatically else {
            throw LocalEngineError.notInstalled(component: component, missing: status.missing.joined(separator: ", "))
        }
        let install = installing.withLock { running in
            if let install = running[component] { return install }
            let title = status.title
            let install = Task { [self] in
                defer { _ = installing.withLock { $0.removeValue(forKey: component) } }
                try await self.install(component, title: title)
            }
            running[component] = install
            return install
        }
        try await install.value
    }

    private func install(_ component: String, title: String) async throws {
        let reporter = InstallReporter(component: component, title: title, installs: installs)
        logger.notice("installing the missing local \(component) component on first use", metadata: ["component": .string(component)])
        reporter.report(.step("Installing \(title) (first use)"))
        do {
            let installer = EngineInstaller(layout: layout, index: packageIndex, observer: { event in reporter.report(event) })
            _ = try await installer.install([component])
            reporter.finish(nil)
            logger.notice("installed the local \(component) component", metadata: ["component": .string(component)])
        } catch {
            let problem = ConversationEngine.describe(error)
            reporter.finish(problem)
            logger.error("installing the local \(component) component failed: \(problem)", metadata: ["component": .string(component)])
            throw error
        }
    }
}

/// Turns an installer's events into `EngineInstallProgress` on a host's `installs`: every step,
/// the step's progress at most ten times a second, and the end.
private final class InstallReporter: Sendable {
    private struct State {
        var progress: EngineInstallProgress
        var lastSent = ContinuousClock.now - .seconds(1)
    }

    private let state: Mutex<State>
    private let installs: LiveEvents

    init(component: String, title: String, installs: LiveEvents) {
        state = Mutex(State(progress: EngineInstallProgress(component: component, title: title, state: .running, step: "", fraction: nil, detail: "")))
        self.installs = installs
    }

    func report(_ event: InstallEvent) {
        let update: EngineInstallProgress? = state.withLock { state in
            let now = ContinuousClock.now
            switch event {
            case .step(let text):
                state.progress.step = text
                state.progress.fraction = nil
                state.progress.detail = ""
            case .progress(let fraction, let detail):
                state.progress.fraction = max(0, min(1, fraction))
                state.progress.detail = detail
                guard now - state.lastSent >= .milliseconds(100) || fraction >= 1 else { return nil }
            case .output(let line):
                guard state.progress.fraction == nil, now - state.lastSent >= .milliseconds(100) else { return nil }
                state.progress.detail = String(line.prefix(80))
            case .skipped(let text), .finished(let text):
                state.progress.detail = text
            }
            state.lastSent = now
            return state.progress
        }
        if let update { installs.publish(.install(update)) }
    }

    func finish(_ problem: String?) {
        let last = state.withLock { state in
            state.progress.state = problem == nil ? .finished : .failed
            state.progress.problem = problem
            state.progress.fraction = problem == nil ? 1 : state.progress.fraction
            return state.progress
        }
        installs.publish(.install(last))
    }
}
