import DequeModule

/// What one connection may make the daemon hold, and where it is. A value: each event returns what to do, and
/// `ConnectionFlow` carries it out (waking the reader, closing the connection).
///
/// - Requests read whose reply is not yet written to the socket: at most `requestLimit` bytes, and at most
///   `unansweredLimit` of them not answered yet. Past either the daemon stops reading the connection until
///   replies are answered and written; the rest waits in the kernel's socket buffer, and then the client's
///   writes block. A request counts until its reply is written, not merely queued, and at least as much as
///   the last reply: so a client that pipelines without reading stops being read once the kernel holds what it
///   has not read, and its replies stay near `requestLimit` in the daemon. It is slowed, never dropped.
/// - Replies and events queued and not yet written to the socket: at most `unsentLimit` bytes (one message
///   always fits, however long). Replies alone stay under it; a client past it has let events pile up unread:
///   it is disconnected.
/// - Replies written: a client that has closed its sending side still gets one reply per request before the
///   daemon closes the connection.
struct ConnectionBudget: Sendable {
    static let requestLimit = 256 * 1024
    static let unsentLimit = 1024 * 1024
    /// Requests read and not answered yet: few, so that the replies still to come, whose length is not known
    /// yet, cannot take a client that pipelines past `unsentLimit` (the policy loop answers one at a time
    /// anyway).
    static let unansweredLimit = 4

    /// The sizes of the requests taken whose reply is not written yet, oldest first (replies go in order).
    private var unreplied = Deque<Int>()
    private(set) var unrepliedBytes = 0
    private(set) var requestsTaken = 0
    private(set) var unsentBytes = 0
    private(set) var repliesWritten = 0
    /// The client sent its last request (it closed its side, or the daemon stopped reading it).
    private(set) var inputEnded = false
    /// Nothing more is taken, queued or awaited: the connection is closed, or is being closed for overflow.
    private(set) var ended = false

    private(set) var repliesQueued = 0
    /// The size of the last reply queued: a request counts at least as much, since its reply will likely be
    /// as long (a client that pipelines `status` requests has fewer of them in flight than one that pipelines
    /// `getState`), so the replies of the requests in flight stay near `requestLimit` too.
    private(set) var lastReplyBytes = 0

    /// What a request of `bytes` counts.
    func cost(ofRequest bytes: Int) -> Int { max(bytes, lastReplyBytes) }

    /// Whether a request of `bytes` may be taken now. One is always taken when none waits for its reply.
    func hasRoom(forRequest bytes: Int) -> Bool {
        guard requestsTaken - repliesQueued < Self.unansweredLimit else { return false }
        return unreplied.isEmpty || unrepliedBytes + cost(ofRequest: bytes) <= Self.requestLimit
    }

    mutating func take(request bytes: Int) {
        let cost = cost(ofRequest: bytes)
        unreplied.append(cost)
        unrepliedBytes += cost
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

    /// A message for the client is ready to be written; `isReply` answers the oldest request not answered yet,
    /// which counts from now on as much as its reply if that is longer.
    mutating func queue(bytes: Int, isReply: Bool) -> Queueing {
        if ended { return .drop }
        if unsentBytes > 0 && unsentBytes + bytes > Self.unsentLimit {
            ended = true
            return .overflow(unsentBytes: unsentBytes)
        }
        unsentBytes += bytes
        if isReply { charge(reply: bytes) }
        return .queue
    }

    private mutating func charge(reply bytes: Int) {
        lastReplyBytes = bytes
        let position = repliesQueued - repliesWritten
        repliesQueued += 1
        guard position < unreplied.count else { return }
        let index = unreplied.index(unreplied.startIndex, offsetBy: position)
        if unreplied[index] < bytes {
            unrepliedBytes += bytes - unreplied[index]
            unreplied[index] = bytes
        }
    }

    /// A queued message is taken back unwritten (a newer status replaces it).
    mutating func withdraw(bytes: Int) {
        unsentBytes -= bytes
    }

    /// A message is in the kernel's socket buffer; `isReply` answers the oldest request taken, which stops
    /// counting now.
    mutating func written(bytes: Int, isReply: Bool) {
        unsentBytes -= bytes
        guard isReply else { return }
        repliesWritten += 1
        if let replied = unreplied.popFirst() { unrepliedBytes -= replied }
    }

    mutating func endInput() { inputEnded = true }
    mutating func end() { ended = true }

    /// The connection may close: every request taken has its reply written (or nothing more can be written).
    var drained: Bool { ended || repliesWritten >= requestsTaken }
}
