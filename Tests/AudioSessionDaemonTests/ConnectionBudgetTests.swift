import Testing

@testable import AudioSessionDaemon

/// The per-connection budget as a value: what it lets in, when it says a client is not reading, and when a
/// half-closed connection may close.
@Suite struct ConnectionBudgetTests {
    @Test func requestsAreTakenUpToTheLimitAndEachWrittenReplyMakesRoomAgain() {
        var budget = ConnectionBudget()
        let cost = ConnectionBudget.requestLimit / 4
        for _ in 0..<4 {
            #expect(budget.hasRoom(forRequest: cost))
            budget.take(request: cost)
            #expect(budget.queue(bytes: 100, isReply: true) == .queue)
        }
        // Replies queued but not written (the client does not read): no room, so a client that pipelines
        // without reading stops being read instead of having its replies pile up in the daemon.
        #expect(!budget.hasRoom(forRequest: cost))
        budget.written(bytes: 100, isReply: true)
        #expect(budget.hasRoom(forRequest: cost))
        // An event answers nothing.
        budget.take(request: cost)
        #expect(budget.queue(bytes: 100, isReply: false) == .queue)
        budget.written(bytes: 100, isReply: false)
        #expect(!budget.hasRoom(forRequest: cost))
    }

    @Test func aRequestCountsAsMuchAsTheLastReplySoLongRepliesInFlightStayNearTheLimit() {
        var budget = ConnectionBudget()
        budget.take(request: 1024)
        let longReply = 16 * 1024
        #expect(budget.queue(bytes: longReply, isReply: true) == .queue)
        #expect(budget.unrepliedBytes == longReply, "the answered request counts as much as its reply until it is written")
        // Requests are read only a few ahead of their answers.
        var taken = 1
        while budget.hasRoom(forRequest: 1024) {
            budget.take(request: 1024)
            taken += 1
        }
        #expect(taken == 1 + ConnectionBudget.unansweredLimit)
        // Answered and not written, each counts as its reply: the next are read until those fill the limit.
        while true {
            if budget.requestsTaken > budget.repliesQueued {
                #expect(budget.queue(bytes: longReply, isReply: true) == .queue)
            } else if budget.hasRoom(forRequest: 1024) {
                budget.take(request: 1024)
                taken += 1
            } else {
                break
            }
        }
        #expect(taken == ConnectionBudget.requestLimit / longReply)
        // Their replies, as long, all fit under the unsent limit: replies alone never disconnect a client.
        #expect(budget.unsentBytes == taken * longReply)
    }

    @Test func oneRequestIsAlwaysTakenWhenNoneWaitsHoweverLong() {
        let budget = ConnectionBudget()
        #expect(budget.hasRoom(forRequest: ConnectionBudget.requestLimit * 2))
    }

    @Test func aClientPastTheUnsentLimitOverflowsOnceAndEverythingAfterIsDropped() {
        var budget = ConnectionBudget()
        // One message always fits, however long.
        #expect(budget.queue(bytes: ConnectionBudget.unsentLimit * 3, isReply: false) == .queue)
        budget.written(bytes: ConnectionBudget.unsentLimit * 3, isReply: false)
        #expect(budget.queue(bytes: ConnectionBudget.unsentLimit - 10, isReply: false) == .queue)
        #expect(budget.queue(bytes: 10, isReply: false) == .queue)
        #expect(budget.queue(bytes: 1, isReply: false) == .overflow(unsentBytes: ConnectionBudget.unsentLimit))
        #expect(budget.ended)
        #expect(budget.queue(bytes: 1, isReply: false) == .drop)
    }

    @Test func aWithdrawnStatusNoLongerCountsAsUnsent() {
        var budget = ConnectionBudget()
        #expect(budget.queue(bytes: 800_000, isReply: false) == .queue)
        budget.withdraw(bytes: 800_000)
        #expect(budget.queue(bytes: 800_000, isReply: false) == .queue)
        #expect(budget.unsentBytes == 800_000)
    }

    @Test func aHalfClosedConnectionIsDrainedWhenEveryRequestHasItsReplyWritten() {
        var budget = ConnectionBudget()
        budget.take(request: 1024)
        budget.take(request: 1024)
        budget.endInput()
        #expect(!budget.drained)
        #expect(budget.queue(bytes: 50, isReply: true) == .queue)
        #expect(budget.queue(bytes: 60, isReply: false) == .queue)
        #expect(budget.queue(bytes: 50, isReply: true) == .queue)
        budget.written(bytes: 50, isReply: true)
        budget.written(bytes: 60, isReply: false)
        #expect(!budget.drained)
        budget.written(bytes: 50, isReply: true)
        #expect(budget.drained)
        #expect(budget.unsentBytes == 0)
        #expect(budget.unrepliedBytes == 0)
    }
}
