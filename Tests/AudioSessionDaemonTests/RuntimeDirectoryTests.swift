import Locking
import AudioSessionTestSupport
import Foundation
import Testing

/// The daemon makes its socket only in a folder no one else can change: its own user's, not writable by
/// others, not a symbolic link, in parents that others cannot rename it out of. Any other is refused at start,
/// with the folder and what is wrong with it, and the daemon exits with status 1 without making a socket.
@Suite(.timeLimit(.minutes(4))) struct RuntimeDirectoryTests {
    /// A folder for one case, and the daemon's outcome with `--socket` in `socketFolder` (relative to it).
    struct Case: Sendable, CustomStringConvertible {
        var description: String
        var prepare: @Sendable (_ base: String) throws -> Void
        var socketFolder: String
        var refusedFolder: String
        var problem: String
    }

    static let cases: [Case] = [
        Case(
            description: "writable by group and others",
            prepare: { try makeFolder($0 + "/run", mode: 0o777) },
            socketFolder: "run",
            refusedFolder: "run",
            problem: "its mode is 0777: others than its owner may change what is in it"
        ),
        Case(
            description: "writable by its group",
            prepare: { try makeFolder($0 + "/run", mode: 0o770) },
            socketFolder: "run",
            refusedFolder: "run",
            problem: "its mode is 0770: others than its owner may change what is in it"
        ),
        Case(
            description: "a symbolic link",
            prepare: {
                try makeFolder($0 + "/elsewhere", mode: 0o700)
                try FileManager.default.createSymbolicLink(atPath: $0 + "/run", withDestinationPath: $0 + "/elsewhere")
            },
            socketFolder: "run",
            refusedFolder: "run",
            problem: "it is a symbolic link"
        ),
        Case(
            description: "in a parent anyone may write to",
            prepare: { try makeFolder($0 + "/shared", mode: 0o777) },
            socketFolder: "shared/run",
            refusedFolder: "shared",
            problem: "its mode is 0777: others than its owner may change what is in it"
        ),
    ]

    @Test(arguments: cases) func aFolderOthersMayChangeIsRefused(_ folder: Case) async throws {
        try await refuses(folder)
    }

    @Test(.enabled(if: getuid() == 0, "only root can give a folder to another user"))
    func aFolderOfAnotherUserIsRefused() async throws {
        try await refuses(
            Case(
                description: "another user's",
                prepare: {
                    try Self.makeFolder($0 + "/run", mode: 0o700)
                    guard chown($0 + "/run", 65534, 65534) == 0 else { throw LiveTestError("chown: errno \(errno)") }
                },
                socketFolder: "run",
                refusedFolder: "run",
                problem: "it belongs to uid 65534, not to this daemon's user (uid 0)"
            )
        )
    }

    @Test func aMissingFolderIsMadeTheDaemonsOwnWithMode0700() async throws {
        let daemon = try await BareDaemon(name: "runtime")
        defer { daemon.stop() }
        var status = stat()
        #expect(lstat(daemon.folder + "/run", &status) == 0)
        #expect(status.st_mode & 0o7777 == 0o700)
        #expect(status.st_uid == getuid())
    }

    private func refuses(_ folder: Case) async throws {
        let base = FileManager.default.temporaryDirectory.path + "/runtime-\(UUID().uuidString.prefix(6))"
        try Self.makeFolder(base, mode: 0o700)
        defer { try? FileManager.default.removeItem(atPath: base) }
        try folder.prepare(base)
        let socket = base + "/" + folder.socketFolder + "/control"
        let run = try await onThread {
            try ChildProcess.run(
                URL(fileURLWithPath: LiveDaemon.daemonPath),
                ["--no-sound-server", "--no-alsa", "--socket", socket, "--state-dir", base + "/state"],
                environment: ProcessInfo.processInfo.environment,
                timeout: .seconds(15)
            )
        }
        #expect(run.status == 1)
        let refusedFolder = base + "/" + folder.refusedFolder
        #expect(run.standardError.contains("\(refusedFolder): "), "\(run.standardError)")
        #expect(run.standardError.contains(folder.problem), "\(run.standardError)")
        #expect(!FileManager.default.fileExists(atPath: socket), "no socket is made there")
    }

    static func makeFolder(_ path: String, mode: mode_t) throws {
        guard mkdir(path, mode) == 0, chmod(path, mode) == 0 else {
            throw LiveTestError("mkdir \(path): errno \(errno)")
        }
    }
}
