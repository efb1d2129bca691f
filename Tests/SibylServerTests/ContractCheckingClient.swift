@testable import APIContract
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
@testable import SibylServer

/// Sibyl's own OpenAPI document, loaded once (it is compiled into the server).
let sibylSpec: Result<APISpec, APISpecError> = Result { () throws(APISpecError) in try APISpec(yaml: SpecRoutes.document) }

/// A test client that holds every exchange to the spec it belongs to: Sibyl's own document for
/// `/api/v1`, `/healthz` and `/readyz` (requests and responses), OpenAI's for `/v1` when it is
/// at hand. Every route test is a contract test this way; a mismatch is a test failure.
struct ContractCheckingClient: TestClientProtocol {
    let inner: any TestClientProtocol

    var port: Int? { inner.port }

    func executeRequest(uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?) async throws -> TestResponse {
        let response = try await inner.executeRequest(uri: uri, method: method, headers: headers, body: body)
        let path = String(uri.split(separator: "?", maxSplits: 1).first ?? "")
        // The browser UI's page and files are not part of the API document.
        if WebRoutes.isPage(path) { return response }
        let checker: ContractChecker?
        if path.hasPrefix("/v1/") {
            checker = try? ContractChecker.openAI()
        } else {
            checker = ContractChecker(spec: try sibylSpec.get())
        }
        guard let checker else { return response }
        let name = "\(method.rawValue) \(uri)"
        // Requests are checked when they are meant to be valid (a 2xx answer): bad input is sent on purpose.
        if (200..<300).contains(response.status.code), let body, body.readableBytes > 0, let type = headers[.contentType], !path.hasPrefix("/v1/") {
            for issue in checker.issues(forRequestBody: Data(buffer: body), path: path, method: method.rawValue, contentType: type) {
                Issue.record("request \(name) breaks the spec: \(issue)")
            }
        }
        let streamed = response.headers[.contentType]?.hasPrefix("text/event-stream") == true
        let openAI = path.hasPrefix("/v1/")
        let issues: [ValidationIssue]
        if openAI, response.status.code >= 400 {
            // OpenAI's spec declares few error responses, but every error has its ErrorResponse shape.
            issues = checker.issues(forInstance: Data(buffer: response.body), againstComponent: "ErrorResponse")
        } else if openAI, streamed {
            issues = checker.issues(
                forEventStream: Data(buffer: response.body), path: path, method: method.rawValue, status: response.status.code,
                eventSchema: "CreateChatCompletionStreamResponse"
            )
        } else {
            issues = checker.issues(
                forResponseBody: Data(buffer: response.body), path: path, method: method.rawValue, status: response.status.code,
                contentType: response.headers[.contentType]
            )
        }
        for issue in issues {
            Issue.record("response \(response.status.code) to \(name) breaks the spec: \(issue)")
        }
        return response
    }
}
