#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file mapped read-only into memory; the mapping lives as long as this object.
///
/// Model weights are read straight from the mapping, so loading a model costs no copy and the
/// kernel shares the pages between processes that load the same file.
final class MappedFile: @unchecked Sendable {
    // @unchecked: the mapping is read-only and never changes after init.
    let path: String
    let bytes: UnsafeRawBufferPointer

    init(path: String) throws(SafeTensorsError) {
        self.path = path
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT { throw .fileNotFound(path: path) }
            throw .unreadable(path: path, reason: Self.describe(errno: code))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw .unreadable(path: path, reason: Self.describe(errno: errno))
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw .unreadable(path: path, reason: "not a regular file")
        }
        let size = Int(info.st_size)
        guard size > 0 else {
            bytes = UnsafeRawBufferPointer(start: nil, count: 0)
            return
        }
        let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0)
        guard let address, address != MAP_FAILED else {
            throw .unreadable(path: path, reason: Self.describe(errno: errno))
        }
        // The whole file is read on the first forward pass; ask for it up front.
        _ = madvise(address, size, MADV_WILLNEED)
        bytes = UnsafeRawBufferPointer(start: address, count: size)
    }

    deinit {
        if let base = bytes.baseAddress {
            munmap(UnsafeMutableRawPointer(mutating: base), bytes.count)
        }
    }

    private static func describe(errno code: Int32) -> String {
        String(cString: strerror(code))
    }
}
