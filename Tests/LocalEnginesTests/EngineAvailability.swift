import Foundation
import LocalEngines

/// Whether the real engines are installed; tests that need them are skipped when they are not,
/// unless `SIBYL_REQUIRE_ENGINES=1` (as `scripts/test.sh` sets), which makes their absence a failure.
enum EngineAvailability {
    static let layout = EngineLayout()
    static let required = ProcessInfo.processInfo.environment["SIBYL_REQUIRE_ENGINES"] == "1"
    static let installer = EngineInstaller(layout: layout)

    static func installed(_ component: String) -> Bool {
        installer.status().first { $0.name == component }?.installed ?? false
    }

    /// Run the test when the component is installed, or when engines are required (it then fails loudly).
    static func runs(_ component: String) -> Bool {
        installed(component) || required
    }
}
