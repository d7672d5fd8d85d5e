import Testing

@testable import AudioSessionDaemon

/// The per-connection budget as a value: what it lets in, when it says a client is not reading, and when a
/// half-closed connection may close.
@Suite struct ConnectionBudgetTests {
    @Test func requestsAreTakenUpToTheLimitAndEachAnswerMakesRoomAgain() {
        var budget = ConnectionBudget()
        let cost = ConnectionBudget.requestLimit / 4
        for _ in 0..<4 {
            #expect(budget.hasRoom(forRequest: cost))
            budget.take(request: cost)
        }
        #expect(!budget.hasRoom(forRequest: cost))
        #expect(budget.queue(bytes: 100, isReply: true) == .queue)
        #expect(budget.hasRoom(forRequest: cost))
        // An event answers nothing.
        budget.take(request: cost)
        #expect(budget.queue(bytes: 100, isReply: false) == .queue)
        #expect(!budget.hasRoom(forRequest: cost))
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
    }
}
