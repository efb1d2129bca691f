import Foundation
import HTTPTypes
import Hummingbird
import MCP
import NIOCore

/// `/mcp`: Sibyl's MCP server over streamable HTTP (POST for requests, GET for the server's own
/// stream, DELETE to end a session), behind the same sign-in as the API: on a server with
/// accounts the caller's API token (or session) decides whose documents the tools see.
struct MCPRoutes {
    let state: ServerState

    func add(to group: RouterGroup<SibylRequestContext>) {
        for method in [HTTPTypes.HTTPRequest.Method.post, .get, .delete] {
            group.on("", method: method) { request, context in try await handle(request, context: context) }
        }
    }

    private func handle(_ request: Request, context: SibylRequestContext) async throws -> Response {
        // A page on another site must not drive the tools with this server's cookie.
        try GlassesRoutes.checkOrigin(request)
        _ = try await state.workspace(for: context)
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = headers[field.name.canonicalName].map { "\($0), \(field.value)" } ?? field.value }
        var body: Data?
        if request.method == .post {
            let buffer = try await request.body.collect(upTo: state.limits.jsonBodyBytes)
            body = Data(buffer: buffer)
        }
        let mcpRequest = MCP.HTTPRequest(method: request.method.rawValue, headers: headers, body: body, path: request.uri.path)
        let answer = await state.mcp.handle(mcpRequest, owner: context.dataOwner) { try await state.runtime(for: context) }
        return Self.response(answer)
    }

    /// The SDK's answer as Hummingbird's: a body, nothing, or the server-sent event stream as it comes.
    static func response(_ answer: MCP.HTTPResponse) -> Response {
        var headers = HTTPFields()
        for (name, value) in answer.headers {
            if let field = HTTPField.Name(name) { headers[field] = value }
        }
        let status = HTTPTypes.HTTPResponse.Status(code: answer.statusCode)
        switch answer {
        case .stream(let events, _):
            return Response(status: status, headers: headers, body: ResponseBody { writer in
                do {
                    for try await chunk in events { try await writer.write(ByteBuffer(data: chunk)) }
                } catch {
                    // The session ended under the stream: the client reconnects or starts another.
                }
                try await writer.finish(nil)
            })
        default:
            return Response(status: status, headers: headers, body: answer.bodyData.map { ResponseBody(byteBuffer: ByteBuffer(data: $0)) } ?? ResponseBody())
        }
    }
}
