import Foundation
import HTTPTypes
import Hummingbird

/// Behind a reverse proxy (nginx, Caddy) every peer is the proxy. When the peer is one of
/// `serve.trusted_proxies`, its `X-Forwarded-For` names the client (for throttling and the log)
/// and `X-Forwarded-Proto: https` marks the session cookie Secure. From any other peer both headers
/// are ignored, so a client cannot pose as another address.
struct ForwardedMiddleware: RouterMiddleware {
    typealias Context = SibylRequestContext
    let trusted: Set<String>

    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
    static let forwardedProto = HTTPField.Name("X-Forwarded-Proto")!

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let peer = context.remoteAddress?.ipAddress, trusted.contains(peer) else { return try await next(request, context) }
        var context = context
        // The nearest address that is not one of our proxies: what the last trusted hop saw.
        let hops = request.headers[values: Self.forwardedFor].flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        context.forwardedClient = hops.last { !trusted.contains($0) }
        context.forwardedHTTPS = request.headers[Self.forwardedProto]?.split(separator: ",").first?
            .trimmingCharacters(in: .whitespaces).lowercased() == "https"
        return try await next(request, context)
    }
}
