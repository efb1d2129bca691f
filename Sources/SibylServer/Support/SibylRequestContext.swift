public import Accounts
import Assistant
public import Foundation
public import Hummingbird
public import HummingbirdWebSocket
public import NIOCore
import SibylApp

/// What each request carries through Sibyl's router: the client's address (for per-client limits
/// and the request log) and the WebSocket upgrade hook the relay route uses. Bodies are read by
/// the routes, each with its own limit.
public struct SibylRequestContext: RequestContext, WebSocketRequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let webSocket: WebSocketHandlerReference<SibylRequestContext>
    /// The connected client, when known.
    public let remoteAddress: SocketAddress?
    /// Who is calling, once `AuthMiddleware` has checked; nil on an open (loopback) server.
    public var credential: Credential?
    /// The client's address as a trusted reverse proxy reports it (`ForwardedMiddleware`).
    public var forwardedClient: String?
    /// Whether a trusted reverse proxy says the client came over HTTPS.
    public var forwardedHTTPS = false

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        remoteAddress = source.channel.remoteAddress
    }

    public var requestDecoder: JSONDecoder { WireCoding.decoder }
    public var responseEncoder: JSONEncoder { WireCoding.compactEncoder }

    /// The client's IP address, for the request log and sign-in throttling: the peer's, or the one a
    /// trusted reverse proxy forwarded.
    public var clientKey: String {
        forwardedClient ?? remoteAddress?.ipAddress ?? "local"
    }

    /// Whether the caller may manage the shared server: an administrator, or anyone on an open
    /// (loopback) server, where the local user is everyone.
    public var isAdministrator: Bool {
        credential.map(\.account.isAdmin) ?? true
    }

    /// Whose data the request reaches: the account's id, or `local` on an open server.
    public var dataOwner: String {
        credential?.account.id ?? "local"
    }

    /// Who is asking, for per-client limits: the account when there is one, else the address.
    public var ownerKey: String {
        credential.map { "account:" + $0.account.id } ?? clientKey
    }
}
