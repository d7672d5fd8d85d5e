import NIOCore

/// What one connection may make the daemon hold, and where it is. A value: each event returns what to do, and
/// `ConnectionFlow` carries it out (waking the reader, closing the connection).
///
/// - Requests read and not yet answered: at most `requestLimit` bytes. Past it the daemon stops reading the
///   connection until answers come; the rest waits in the kernel's socket buffer, and then the client's writes
///   block. A client that pipelines is slowed, never dropped, and cannot fill the one input queue every client
///   shares.
/// - Replies and events queued and not yet written to the socket: at most `unsentLimit` bytes (one message
///   always fits, however long). A client past it is not reading: it is disconnected.
/// - Replies written: a client that has closed its sending side still gets one reply per request before the
///   daemon closes the connection.
struct ConnectionBudget: Sendable {
    static let requestLimit = 256 * 1024
    static let unsentLimit = 1024 * 1024

    /// The sizes of the requests taken and not yet answered, oldest first (answers come in order).
    private var unanswered = CircularBuffer<Int>()
    private(set) var unansweredBytes = 0
    private(set) var requestsTaken = 0
    private(set) var unsentBytes = 0
    private(set) var repliesWritten = 0
    /// The client sent its last request (it closed its side, or the daemon stopped reading it).
    private(set) var inputEnded = false
    /// Nothing more is taken, queued or awaited: the connection is closed, or is being closed for overflow.
    private(set) var ended = false

    /// Whether a request of `bytes` may be taken now. One is always taken when none waits for its answer.
    func hasRoom(forRequest bytes: Int) -> Bool {
        unanswered.isEmpty || unansweredBytes + bytes <= Self.requestLimit
    }

    mutating func take(request bytes: Int) {
        unanswered.append(bytes)
        unansweredBytes += bytes
        requestsTaken += 1
    }

    enum Queueing: Equatable {
        /// Write it.
        case queue
        /// The connection is over: drop it.
        case drop
        /// The client has not read `unsentBytes` already: disconnect it (said once).
        case overflow(unsentBytes: Int)
    }

    /// A message for the client is ready to be written; `isReply` answers the oldest request taken.
    mutating func queue(bytes: Int, isReply: Bool) -> Queueing {
        if isReply, let answered = unanswered.popFirst() { unansweredBytes -= answered }
        if ended { return .drop }
        if unsentBytes > 0 && unsentBytes + bytes > Self.unsentLimit {
            ended = true
            return .overflow(unsentBytes: unsentBytes)
        }
        unsentBytes += bytes
        return .queue
    }

    mutating func written(bytes: Int, isReply: Bool) {
        unsentBytes -= bytes
        if isReply { repliesWritten += 1 }
    }

    mutating func endInput() { inputEnded = true }
    mutating func end() { ended = true }

    /// The connection may close: every request taken has its reply written (or nothing more can be written).
    var drained: Bool { ended || repliesWritten >= requestsTaken }
}
