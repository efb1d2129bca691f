import ArgumentParser
import Glasses

extension GlassesConnection {
    /// Runs the connection until its app has come up `count` times, then stops it; `onRunning` sees
    /// each time (it may drop the link for the next), and the glasses' reports come back in order.
    func runs(_ count: Int, onRunning: (GlassesDeviceInfo) async throws -> Void = { _ in }) async throws -> [GlassesDeviceInfo] {
        let serving = Task { await self.run() }
        defer { serving.cancel() }
        var runs: [GlassesDeviceInfo] = []
        for await event in events {
            if case .state(let state) = event, let info = state.deviceInfo {
                runs.append(info)
                try await onRunning(info)
                if runs.count == count { break }
            }
            if case .notice(let text) = event, text.hasPrefix("giving up") { throw ValidationError("the virtual glasses did not come up: \(text)") }
        }
        await stop()
        return runs
    }
}
