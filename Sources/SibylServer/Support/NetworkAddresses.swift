import Foundation


/// This machine's addresses, for telling a phone where the server is.
enum NetworkAddresses {
    /// The IPv4 addresses of the interfaces that are up, loopback excepted, in the system's order.
    static func interfaceIPv4() -> [String] {
        var first: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&first) == 0, let first else { return [] }
        defer { freeifaddrs(first) }
        var addresses: [String] = []
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            let flags = Int32(entry.pointee.ifa_flags)
            guard flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0,
                  let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) else { continue }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            let written = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { socket in
                var raw = socket.pointee.sin_addr
                return inet_ntop(AF_INET, &raw, &text, socklen_t(text.count))
            }
            guard written != nil else { continue }
            let string = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !addresses.contains(string) { addresses.append(string) }
        }
        return addresses
    }

    /// Whether the address means every interface.
    static func isWildcard(_ host: String) -> Bool {
        ["0.0.0.0", "::", "[::]", "*", ""].contains(host)
    }
}
