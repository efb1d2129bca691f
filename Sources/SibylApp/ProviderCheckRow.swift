import Assistant
import Foundation
public import LocalEngines
public import OpenAIClient
public import SibylConfig
import SibylCore

/// One line of `sibyl providers check`: what a capability uses and whether it works.
public struct ProviderCheckRow: Sendable {
    public var capability: CapabilityKind
    /// The server capability probed (chat and stream are both under chat).
    public var probe: ServerCapability
    public var provider: ProviderSettings
    /// The local engine's state, or nil when there is none for this capability.
    public var localEngine: ComponentStatus?
    public var status: CapabilityStatus
}
