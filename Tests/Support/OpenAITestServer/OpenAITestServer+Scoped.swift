extension OpenAITestServer {
    /// Runs `body` with a server started on a free loopback port, and stops it afterwards whatever
    /// happens, awaiting the stop (as HummingbirdTesting's `app.test { }` does).
    @discardableResult
    public static func with<T>(_ body: (OpenAITestServer) async throws -> T) async throws -> T {
        let server = try await start()
        let result: T
        do {
            result = try await body(server)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
        return result
    }
}
