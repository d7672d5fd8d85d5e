import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

enum SocketPath {
    /// `$AUDIOSESSIOND_SOCKET`, else the daemon's default, worked out as `audiosessionctl` does:
    /// `$XDG_RUNTIME_DIR/audiosessiond/control`, or the same under `/tmp/audiosessiond-UID` without a runtime
    /// directory (docs/PROTOCOL.md, Transport).
    static var fromEnvironment: String {
        let environment = ProcessInfo.processInfo.environment
        if let explicit = environment["AUDIOSESSIOND_SOCKET"], !explicit.isEmpty { return explicit }
        let runtime = environment["XDG_RUNTIME_DIR"] ?? "/tmp/audiosessiond-\(getuid())"
        return runtime + "/audiosessiond/control"
    }
}
