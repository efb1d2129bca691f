import CDBus
public import Foundation
import Synchronization

/// A signal received from the bus.
public struct DBusSignal: Sendable {
    public var path: String
    public var interface: String
    public var member: String
    public var arguments: [DBusValue]
}

/// Why a D-Bus call failed.
public struct DBusError: Error, Sendable, LocalizedError, Equatable {
    public var name: String
    public var message: String

    public var errorDescription: String? { "\(message) (\(name))" }
}

/// A connection to a D-Bus bus (libdbus): method calls, and the signals that match added rules.
///
/// One thread of its own reads the connection and hands replies and signals on, so callers never
/// block on the bus. Call `close()` when done: the reading thread holds the client until then.
public final class DBusClient: @unchecked Sendable {
    private let connection: OpaquePointer
    private let state = Mutex(State())
    private let running = Atomic<Bool>(true)
    private var thread: Thread?

    private struct State {
        var pending: [UInt32: CheckedContinuation<[DBusValue], any Error>] = [:]
        var handlers: [Int: @Sendable (DBusSignal) -> Void] = [:]
        var nextHandler = 0
        /// Set (under the lock) before the connection is freed: callers check it before touching it.
        var closed = false
    }

    /// Connects to the bus at an address (`unix:path=…`).
    public init(address: String) throws {
        dbus_threads_init_default()
        var error = DBusError_C()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        guard let connection = dbus_connection_open_private(address, &error) else {
            throw Self.error(error, fallback: "cannot connect to the bus at \(address)")
        }
        guard dbus_bus_register(connection, &error) != 0 else {
            dbus_connection_close(connection)
            dbus_connection_unref(connection)
            throw Self.error(error, fallback: "cannot register on the bus")
        }
        dbus_connection_set_exit_on_disconnect(connection, 0)
        self.connection = connection
        // The thread keeps the client alive until `close()`, so it never reads a freed connection.
        let thread = Thread { self.loop() }
        thread.name = "sibyl.dbus"
        self.thread = thread
        thread.start()
    }

    /// The system bus (`DBUS_SYSTEM_BUS_ADDRESS`, else BlueZ's usual socket).
    public static func system(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> DBusClient {
        try DBusClient(address: environment["DBUS_SYSTEM_BUS_ADDRESS"] ?? "unix:path=/run/dbus/system_bus_socket")
    }

    /// Stops reading and closes the connection.
    public func close() {
        state.withLock { $0.closed = true }
        guard running.exchange(false, ordering: .sequentiallyConsistent) else { return }
        // The reading thread frees the connection when it stops, within one poll; a caller other
        // than that thread waits for it (the thread itself may be closing, from a signal handler).
        if Thread.current != thread {
            while thread?.isFinished == false { usleep(1_000) }
        }
        fail(all: DBusError(name: "org.sibyl.Closed", message: "the bus connection was closed"))
    }

    /// Calls a method and returns its reply's values.
    @discardableResult
    public func call(_ destination: String, _ path: String, _ interface: String, _ method: String, _ arguments: [DBusValue] = [], expectReply: Bool = true) async throws -> [DBusValue] {
        guard let message = dbus_message_new_method_call(destination, path, interface, method) else {
            throw DBusError(name: "org.sibyl.NoMemory", message: "cannot build a D-Bus message")
        }
        defer { dbus_message_unref(message) }
        var iterator = DBusMessageIter()
        dbus_message_iter_init_append(message, &iterator)
        for argument in arguments { argument.append(to: &iterator) }
        let closed = DBusError(name: "org.sibyl.Closed", message: "the bus connection is closed")
        if !expectReply {
            dbus_message_set_no_reply(message, 1)
            let sent = state.withLock { state -> Bool in
                guard !state.closed, dbus_connection_send(connection, message, nil) != 0 else { return false }
                dbus_connection_flush(connection)
                return true
            }
            guard sent else { throw closed }
            return []
        }
        return try await withCheckedThrowingContinuation { continuation in
            var serial: dbus_uint32_t = 0
            state.withLock { state in
                guard !state.closed, dbus_connection_send(connection, message, &serial) != 0 else {
                    continuation.resume(throwing: closed)
                    return
                }
                state.pending[serial] = continuation
                dbus_connection_flush(connection)
            }
        }
    }

    /// Asks the bus to route matching signals here (`type='signal',interface='…'`).
    ///
    /// Sent as an ordinary call: libdbus's blocking `dbus_bus_add_match` would wait for a reply
    /// that the reading thread takes.
    public func addMatch(_ rule: String) async throws {
        try await call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "AddMatch", [.string(rule)])
    }

    /// Calls `handler` for every signal received (filter by path, interface and member yourself).
    @discardableResult
    public func onSignal(_ handler: @escaping @Sendable (DBusSignal) -> Void) -> Int {
        state.withLock { state in
            state.nextHandler += 1
            state.handlers[state.nextHandler] = handler
            return state.nextHandler
        }
    }

    /// Stops calling a signal handler.
    public func removeHandler(_ id: Int) {
        _ = state.withLock { $0.handlers.removeValue(forKey: id) }
    }

    // MARK: Reading

    private func loop() {
        while running.load(ordering: .relaxed) {
            guard dbus_connection_read_write(connection, 5) != 0 else {
                fail(all: DBusError(name: "org.sibyl.Disconnected", message: "the bus went away"))
                break
            }
            while running.load(ordering: .relaxed), let message = dbus_connection_pop_message(connection) {
                route(message)
                dbus_message_unref(message)
            }
        }
        // Wait for close() if the bus went away on its own, then free the connection here, where
        // nothing else uses it.
        while running.load(ordering: .relaxed) { usleep(5_000) }
        state.withLock { state in
            state.closed = true
            dbus_connection_close(connection)
            dbus_connection_unref(connection)
        }
    }

    private func route(_ message: OpaquePointer) {
        var iterator = DBusMessageIter()
        let values = dbus_message_iter_init(message, &iterator) != 0 ? DBusValue.readAll(&iterator) : []
        switch dbus_message_get_type(message) {
        case DBUS_MESSAGE_TYPE_METHOD_RETURN:
            let serial = dbus_message_get_reply_serial(message)
            state.withLock { $0.pending.removeValue(forKey: serial) }?.resume(returning: values)
        case DBUS_MESSAGE_TYPE_ERROR:
            let serial = dbus_message_get_reply_serial(message)
            let name = dbus_message_get_error_name(message).map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed"
            state.withLock { $0.pending.removeValue(forKey: serial) }?.resume(throwing: DBusError(name: name, message: values.first?.string ?? name))
        case DBUS_MESSAGE_TYPE_SIGNAL:
            let signal = DBusSignal(
                path: dbus_message_get_path(message).map { String(cString: $0) } ?? "",
                interface: dbus_message_get_interface(message).map { String(cString: $0) } ?? "",
                member: dbus_message_get_member(message).map { String(cString: $0) } ?? "",
                arguments: values
            )
            for handler in state.withLock({ Array($0.handlers.values) }) { handler(signal) }
        default:
            break
        }
    }

    private func fail(all error: DBusError) {
        let waiting = state.withLock { state in
            defer { state.pending = [:] }
            return Array(state.pending.values)
        }
        for continuation in waiting { continuation.resume(throwing: error) }
    }

    private static func error(_ error: DBusError_C, fallback: String) -> DBusError {
        DBusError(
            name: error.name.map { String(cString: $0) } ?? "org.sibyl.Failed",
            message: error.message.map { String(cString: $0) } ?? fallback
        )
    }
}

/// libdbus's own error struct, renamed so it doesn't clash with `DBusError` above.
typealias DBusError_C = CDBus.DBusError
