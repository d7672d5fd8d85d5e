import AudioSessionDaemonCore
import FoundationEssentials
import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// Who is at the other end of a Unix socket connection, as the kernel says (SO_PEERCRED): the caller cannot
/// claim to be someone else.
enum PeerCredentials {
    static func of(_ channel: any Channel) -> EventLoopFuture<ClientPeer> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeFailedFuture(
                DaemonError("the control socket's channel gives no access to its socket options")
            )
        }
        let credentials: EventLoopFuture<KernelPeerCredentials> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET),
            name: SocketOptionName(SO_PEERCRED)
        )
        return credentials.map { credentials in
            ClientPeer(
                processID: credentials.pid,
                userID: credentials.uid,
                processName: processName(of: credentials.pid),
                executable: ExecutableFile.of(processID: credentials.pid)
            )
        }
    }

    /// The name the kernel has for a process (`/proc/PID/comm`), for naming its session.
    static func processName(of pid: Int32) -> String {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? ""
        let name = text.trimmingWhitespace
        return name.isEmpty ? "pid \(pid)" : name
    }
}

/// Linux's `struct ucred` (three 32-bit fields: pid, uid, gid), which Swift's Glibc module does not export
/// without `_GNU_SOURCE`. A struct of three 32-bit integers has the same layout.
private struct KernelPeerCredentials: Sendable {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}

/// A failure of the daemon itself, with what to do about it.
struct DaemonError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
