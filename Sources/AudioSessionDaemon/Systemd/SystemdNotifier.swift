import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Sends `sd_notify` messages (`READY=1`, `STATUS=...`, `WATCHDOG=1`...) to systemd: one datagram each, to the
/// Unix socket named by `NOTIFY_SOCKET`, a path or an abstract name (`@name`). No libsystemd needed.
///
/// A send never blocks: if systemd's queue is full the message is dropped and logged by the caller, as
/// `sd_notify` would report it.
final class SystemdNotifier: Sendable {
    /// The socket the notifications leave from (datagram, close-on-exec), open for the notifier's life.
    private let descriptor: Int32
    /// The destination, and how many bytes of it count (an abstract name is not zero-terminated).
    private let address: sockaddr_un
    private let addressLength: socklen_t
    /// Where the notifications go, for messages.
    let destination: String

    /// A notifier for `NOTIFY_SOCKET=destination`; throws if the name cannot be a Unix socket address.
    init(destination: String) throws {
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path)!
        var name = Array(destination.utf8)
        let isAbstract = name.first == UInt8(ascii: "@")
        if isAbstract {
            name[0] = 0  // an abstract address starts with a zero byte and is not terminated
        } else {
            name.append(0)
        }
        guard name.count <= MemoryLayout.size(ofValue: socketAddress.sun_path), name.count > 1 else {
            throw DaemonError("NOTIFY_SOCKET='\(destination)' is not a valid Unix socket address")
        }
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { $0.copyBytes(from: name) }
        address = socketAddress
        addressLength = socklen_t(pathOffset + name.count)
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw DaemonError("cannot create a socket for NOTIFY_SOCKET: errno \(errno)") }
        // Stored last: from here on `deinit` owns the socket and closes it once.
        self.descriptor = descriptor
        self.destination = destination
    }

    deinit { close(descriptor) }

    /// Sends `fields` (`"READY=1"`, `"STATUS=..."`) as one message; throws with errno if it could not be sent.
    func send(_ fields: [String]) throws {
        let message = Array(fields.joined(separator: "\n").utf8)
        let sent = message.withUnsafeBytes { bytes in
            withUnsafePointer(to: address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { destination in
                    sendto(
                        descriptor,
                        bytes.baseAddress,
                        bytes.count,
                        Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT),
                        destination,
                        addressLength
                    )
                }
            }
        }
        guard sent == message.count else {
            throw DaemonError(
                "cannot notify systemd at \(destination): errno \(errno) (\(String(cString: strerror(errno))))"
            )
        }
    }

    /// `MONOTONIC_USEC=`, which systemd wants beside `RELOADING=1`: CLOCK_MONOTONIC now, in microseconds.
    static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
    }
}
