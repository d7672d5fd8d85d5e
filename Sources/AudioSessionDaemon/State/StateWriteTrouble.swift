import Logging

/// The write failures of one state file, told without a flood: on a full disk every turn of a loop fails the
/// same way, and a line per failure would fill the log (and the disk the log is on). The first failure is
/// logged with its reason; the rest are counted; the first write that succeeds again says how many failed.
struct StateWriteTrouble: Sendable {
    /// What is written, in words: `stream journal /var/lib/audiosessiond/streams.json`.
    let what: String
    /// The first failure of the current run of failures; nil while writes succeed.
    private(set) var failure: StateFiles.WriteError?
    private(set) var failedWrites = 0

    init(_ what: String) { self.what = what }

    mutating func failed(_ error: StateFiles.WriteError, logger: Logger, consequence: String) {
        failedWrites += 1
        guard failure == nil else { return }
        failure = error
        logger.error(
            "\(what) not written: \(error); \(consequence); further failures are counted, not logged, until a write succeeds"
        )
    }

    mutating func succeeded(logger: Logger) {
        guard let failure else { return }
        logger.notice("\(what) written again, after \(failedWrites) failed writes (the first: \(failure))")
        self.failure = nil
        failedWrites = 0
    }
}
