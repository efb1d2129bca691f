import AsyncHTTPClient
import HTTPTypes
// Testable for TestResponse's initialiser, which HummingbirdTesting keeps to itself.
@testable import HummingbirdTesting
import NIOCore
import NIOHTTP1

/// The live tests' client: each request on AsyncHTTPClient with a ten-minute ceiling against
/// hangs. HummingbirdTesting's own live client gives up after 20 s without a byte, and on a loaded
/// two-core CI machine a plain request has taken longer than that; a test is about what the server
/// answers, not how soon a busy machine lets it.
struct PatientLiveClient: TestClientProtocol {
    let port: Int?

    private static let http = patientHTTP

    func executeRequest(uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?) async throws -> TestResponse {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port ?? 0)\(uri)")
        request.method = HTTPMethod(rawValue: method.rawValue)
        for field in headers { request.headers.add(name: field.name.rawName, value: field.value) }
        if let body { request.body = .bytes(body) }
        let response = try await Self.http.execute(request, timeout: .seconds(600))
        let collected = try await response.body.collect(upTo: 64 << 20)
        var fields = HTTPFields()
        for header in response.headers {
            if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) }
        }
        let head = HTTPResponse(status: .init(code: Int(response.status.code), reasonPhrase: response.status.reasonPhrase), headerFields: fields)
        return TestResponse(head: head, body: collected, trailerHeaders: nil)
    }
}

/// The HTTP client of the live tests: no read timeout (HTTPClient.shared's gives up after 90 s
/// without a byte, and a search waiting for an engine's install on a loaded machine took longer);
/// each request names its own ceiling against hangs. Redirects are answered to the test, not
/// followed: tests look at them.
let patientHTTP: HTTPClient = {
    var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
    // Many requests at once (the first requests' test) wait for a connection rather than fail.
    configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
    configuration.timeout = .init(connect: .seconds(600))
    return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
}()
