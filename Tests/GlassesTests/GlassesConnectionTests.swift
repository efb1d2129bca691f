import Foundation
import Glasses
import SibylCore
import Testing

/// The connection's life, driven by a scripted driver and link: no glasses, no emulator, no clock to wait on.
@Suite(.timeLimit(.minutes(10)))
struct GlassesConnectionTests {
    /// A connection running on a scripted link and driver, until `body` is done.
    static func with(
        transport: ScriptedTransport = ScriptedTransport(), options: GlassesConnection.Options = .quick,
        driver makeDriver: (ScriptedTransport) -> ScriptedDriver = { ScriptedDriver(transport: $0) },
        _ body: (GlassesConnection, ScriptedDriver, ScriptedTransport, inout EventReader) async throws -> Void
    ) async throws {
        let driver = makeDriver(transport)
        let connection = GlassesConnection(transport: transport, driver: driver, options: options)
        try await connection.whileRunning { events in try await body(connection, driver, transport, &events) }
    }

    @Test func theAppIsBroughtUpStepByStep() async throws {
        try await Self.with { connection, _, transport, events in
            let info = try await events.running()
            #expect(info == GlassesDeviceInfo(firmware: "v1", app: "sha256:test", uploaded: true, maximumWriteLength: 100))
            #expect(events.states == [
                .disconnected(reason: nil), .connecting, .preparing(.checkingFirmware), .uploadingApp(file: "main", index: 0, count: 1), .starting, .running(info),
            ])
            #expect(await connection.state == GlassesState(kind: .monocle, phase: .running(info)))
            #expect(await connection.state.isRunning)
            #expect(transport.writes == [Data("main".utf8)])
        }
    }

    @Test func aLostLinkIsConnectedAgainAndTheDriverHearsOfIt() async throws {
        try await Self.with { _, driver, transport, events in
            _ = try await events.running()
            transport.drop("walked out of range")
            let lost = try await events.next("the loss") { event -> GlassesState? in
                if case .state(let state) = event, state.isDisconnected { state } else { nil }
            }
            #expect(lost.phase == .disconnected(reason: "walked out of range"))
            _ = try await events.running()
            #expect(transport.connects == 2)
            #expect(await driver.prepared == 2)
            #expect(await driver.linksLost == ["walked out of range"])
        }
    }

    @Test func failedConnectsAreTriedAgainWithLongerPauses() async throws {
        try await Self.with(transport: ScriptedTransport(failingConnects: 3)) { _, _, transport, events in
            _ = try await events.running()
            #expect(transport.connects == 4)
            #expect(events.notices == [
                "cannot connect: Bluetooth error: nobody answers; trying again in 0.001 seconds",
                "cannot connect: Bluetooth error: nobody answers; trying again in 0.002 seconds",
                "cannot connect: Bluetooth error: nobody answers; trying again in 0.004 seconds",
            ])
            // The pauses do not pass through `disconnected` again: one `connecting` throughout.
            #expect(events.states.filter { $0 == .connecting }.count == 1)
        }
    }

    @Test func withoutReconnectingAFailedConnectEndsDisconnected() async throws {
        var options = GlassesConnection.Options.quick
        options.reconnect = false
        try await Self.with(transport: ScriptedTransport(failingConnects: 1), options: options) { connection, _, _, events in
            let phase = try await events.next("the end") { event -> GlassesPhase? in
                if case .state(let state) = event, case .disconnected(let reason?) = state.phase { .disconnected(reason: reason) } else { nil }
            }
            #expect(phase == .disconnected(reason: "Bluetooth error: nobody answers"))
            #expect(await connection.state.isDisconnected)
        }
    }

    @Test func aDriverThatFailsGivesUpTheLinkAndTheNextOneServes() async throws {
        let transport = ScriptedTransport()
        try await Self.with(transport: transport) { _, driver, _, events in
            _ = try await events.running()
            await driver.failNextPrepare(with: GlassesError.timeout(waitingFor: "the raw REPL", after: .seconds(3)))
            transport.drop("restarted")
            let notice = try await events.next("giving up") { event -> String? in
                if case .notice(let text) = event, text.hasPrefix("giving up") { text } else { nil }
            }
            #expect(notice == "giving up on this connection: The glasses did not answer in time (waited 3.0 seconds for the raw REPL).")
            _ = try await events.running()
            #expect(await driver.linksLost == ["restarted", "disconnected by Sibyl"])
        }
    }

    @Test func requestsComeOutAndAnswersGoIn() async throws {
        try await Self.with { connection, driver, transport, events in
            await #expect(throws: GlassesError.appNotRunning) { try await connection.show("too early", isError: false) }
            _ = try await events.running()
            transport.notify("ask:what time is it")
            #expect(try await events.one() == .transferStarted)
            #expect(try await events.one() == .request(.spoken(audio: Data("what time is it".utf8))))
            transport.notify("cancel")
            #expect(try await events.one() == .request(.cancel))
            await connection.showThinking()
            try await connection.show("Noon.", isError: false)
            try await connection.show("No idea.", isError: true)
            #expect(await driver.thinking == 1)
            #expect(await driver.shown == ["Noon.", "error: No idea."])
        }
    }

    @Test func whatAStaleLinkReportsIsDropped() async throws {
        try await Self.with { _, driver, transport, events in
            _ = try await events.running()
            transport.drop("gone")
            _ = try await events.running()
            let stale = try #require(await driver.links.first)
            await stale.enter(.starting)
            await stale.deliver(.cancel)
            await stale.transferStarted()
            await #expect(throws: GlassesError.self) { try await stale.write(Data([1]), to: .serial) }
            // A request on the link up now, after the stale ones: it is the next event, with nothing before it.
            transport.notify("cancel")
            #expect(try await events.one() == .request(.cancel))
        }
    }

    @Test func stoppingEndsTheEventsAndTheDriverIsTold() async throws {
        let transport = ScriptedTransport()
        let driver = ScriptedDriver(transport: transport)
        let connection = GlassesConnection(transport: transport, driver: driver, options: .quick)
        var events = EventReader(connection)
        let serving = Task { await connection.run() }
        _ = try await events.running()
        await connection.stop()
        #expect(await events.toTheEnd())
        await serving.value
        #expect(await driver.linksLost.first == "stopped")
    }

    @Test func anUnexpectedFirmwareIsReportedNotRefused() async throws {
        try await Self.with(driver: { ScriptedDriver(kind: .frame, transport: $0, expectedFirmware: "v9") }) { connection, _, _, events in
            let info = try await events.running()
            #expect(events.notices == ["the glasses run firmware v1; Sibyl's app is written for v9"])
            #expect(await connection.state == GlassesState(kind: .frame, phase: .running(info)))
        }
    }
}
