import Foundation
import HummingbirdTesting
import Testing
@testable import SibylServer

@Suite struct HealthTests {
    @Test func healthzAnswersAndTheSpecIsServed() async throws {
        try await withServerFixture { fixture in
            try await fixture.client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("\"status\":\"ok\""))
            }
            try await fixture.client.execute(uri: "/api/v1/openapi.yaml", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).hasPrefix("openapi: 3.1"))
            }
        }
    }
}
