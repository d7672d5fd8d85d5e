import Foundation
import Locking

/// A private `dbus-daemon` for one test, in a temporary directory of its own, that activates no services (the
/// machine's `.service` files would start feedbackd or playerctld on a call to their names; here only what the
/// test starts is on the bus). It stops, and its directory is removed, on `stop()` or when it is released.
public final class PrivateSessionBus: Sendable {
    /// The bus's directory: its socket, configuration and log.
    public let directory: String
    /// The address clients connect to, `unix:path=.../bus`.
    public let address: String
    /// What a client process needs to use this bus as its session bus.
    public var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address] }

    private let process: Locked<Process?>

    private init(directory: String, address: String, process: Process) {
        self.directory = directory
        self.address = address
        self.process = Locked(process)
    }

    deinit {
        stop()
    }

    /// What the bus allows.
    public enum Policy: Sendable {
        /// Anything: own any name, call anyone (the session bus of a test). `everyUser`: processes of any user
        /// may connect (its directory open to all, `<allow user="*"/>`), for a test that calls as another user
        /// (`setpriv --reuid=nobody busctl ...`); otherwise only this user.
        case open(type: String, everyUser: Bool)
        /// The machine's own system bus policy (`/usr/share/dbus-1/system.conf` and the policies it includes:
        /// no one owns a name no policy file grants), plus the policy files in `directory` (a package's, as
        /// installed to `system.d`). Every user may connect. The bus daemon runs as `messagebus`, as the
        /// machine's does.
        case machineSystemBus(including: String)
    }

    /// `start` for async code, on a thread of its own: it waits for the bus, and a blocked thread of Swift's
    /// cooperative pool (as many as cores) stalls every other task of the test process (`PrivateSoundServer`'s
    /// async `start` says more). In an async context this overload is the one chosen.
    public static func start(type: String = "session", everyUser: Bool = false) async throws -> PrivateSessionBus {
        try await onThread { try start(.open(type: type, everyUser: everyUser)) as PrivateSessionBus }
    }

    /// A bus with the machine's system bus policy (see `Policy.machineSystemBus`), on a thread of its own.
    public static func startWithMachineSystemPolicy(including directory: String) async throws -> PrivateSessionBus {
        try await onThread { try start(.machineSystemBus(including: directory)) as PrivateSessionBus }
    }

    /// Starts a bus and returns once it accepts connections (it has printed its address).
    /// - Parameters:
    ///   - type: the bus's `<type>`, `session` or `system` (a stand-in system bus for logind).
    ///   - everyUser: see `Policy.open`.
    @available(*, noasync, message: "it blocks its thread while it waits: await the async overload, which runs it with onThread")
    public static func start(type: String = "session", everyUser: Bool = false) throws -> PrivateSessionBus {
        try start(.open(type: type, everyUser: everyUser))
    }

    @available(*, noasync, message: "it blocks its thread while it waits: await the async overload, which runs it with onThread")
    private static func start(_ policy: Policy) throws -> PrivateSessionBus {
        guard let executable = ChildProcess.executable(named: "dbus-daemon") else {
            throw SoundServerError(code: .packageMissing, message: "dbus-daemon is not installed (Debian: dbus-daemon)")
        }
        let directory = try FileManager.default.makeTemporaryDirectory(prefix: "audiosessiond-bus")
        let address = "unix:path=\(directory)/bus"
        let configuration: String
        var everyUser = true
        switch policy {
        case .open(let type, let openToAll):
            everyUser = openToAll
            configuration = """
                <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
                 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
                <busconfig>
                  <type>\(type)</type>
                  <listen>\(address)</listen>
                  <auth>EXTERNAL</auth>
                  <policy context="default">\(everyUser ? "\n    <allow user=\"*\"/>" : "")
                    <allow send_destination="*" eavesdrop="true"/>
                    <allow eavesdrop="true"/>
                    <allow own="*"/>
                  </policy>
                </busconfig>
                """
        case .machineSystemBus(let policies):
            // `--address` below takes the place of system.conf's <listen>, `--nopidfile` of its <pidfile>.
            configuration = """
                <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
                 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
                <busconfig>
                  <include>/usr/share/dbus-1/system.conf</include>
                  <includedir>\(policies)</includedir>
                </busconfig>
                """
        }
        let printed = "\(directory)/address"
        do {
            if everyUser {
                guard chmod(directory, 0o755) == 0 else {
                    throw SoundServerError(code: .startFailed, message: "cannot open \(directory) to every user: errno \(errno)")
                }
            }
            try configuration.write(toFile: "\(directory)/bus.conf", atomically: true, encoding: .utf8)
            let output = try ChildProcess.newFile(printed)
            let log = try ChildProcess.newFile("\(directory)/dbus-daemon.log")
            let process = Process()
            process.executableURL = executable
            process.arguments = ["--nofork", "--config-file=\(directory)/bus.conf", "--print-address=1"]
            if case .machineSystemBus = policy {
                process.arguments! += ["--address=\(address)", "--nopidfile", "--nosyslog"]
            }
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = output
            process.standardError = log
            try ChildProcess.launch(process)
            try? output.close()
            try? log.close()
            let bus = PrivateSessionBus(directory: directory, address: address, process: process)
            // Ready once the address is printed: the socket listens by then.
            let deadline = ContinuousClock.now + .seconds(20)
            while (try? String(contentsOfFile: printed, encoding: .utf8))?.contains("\n") != true {
                guard process.isRunning, ContinuousClock.now < deadline else {
                    let tail = (try? String(contentsOfFile: "\(directory)/dbus-daemon.log", encoding: .utf8)) ?? ""
                    bus.stop()
                    throw SoundServerError(code: .startFailed, message: "dbus-daemon did not start", context: tail)
                }
                usleep(2_000)
            }
            return bus
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    /// The bus daemon's log (its complaints about a policy file, for one).
    public var log: String { (try? String(contentsOfFile: "\(directory)/dbus-daemon.log", encoding: .utf8)) ?? "" }

    /// Stops the bus daemon and removes its directory. Idempotent.
    public func stop() {
        guard let process = process.withLock({ $0.take() }) else { return }
        process.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The bus daemon's process id (for tests that check nothing is left running).
    public var processIdentifier: Int32? {
        process.withLock { $0?.processIdentifier }
    }
}

extension FileManager {
    /// A new directory under the temporary directory (or /tmp when that path is too long for a socket).
    func makeTemporaryDirectory(prefix: String) throws -> String {
        var base = temporaryDirectory.path
        while base.count > 1 && base.hasSuffix("/") { base.removeLast() }
        if base.count > 60 { base = "/tmp" }
        var template = Array("\(base)/\(prefix)-XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { buffer in mkdtemp(buffer.baseAddress!) }
        guard created != nil else {
            throw SoundServerError(
                code: .startFailed,
                message: "cannot create a directory in \(base): \(String(cString: strerror(errno)))"
            )
        }
        return template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}
