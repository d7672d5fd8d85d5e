import AudioSessionProtocol
import Testing

@testable import AudioSessionClient

/// The daemon's error codes as the library reads them: a known code is kept, one the library does not know
/// (from a newer daemon) is still an error, `unexpectedReply`, with the daemon's code and words in the message.
@Suite struct ErrorCodeTests {
    static let fullDisk =
        "activate refused: the daemon cannot write its state: no room for the stream journal /var/lib/audiosessiond/streams.json (4096 bytes): cannot write /var/lib/audiosessiond/space.probe: No space left on device (ENOSPC, errno 28)"

    @Test func stateUnavailableIsReadWithItsMessage() {
        let error = AudioSessionError(ErrorBody(code: "stateUnavailable", message: Self.fullDisk))
        #expect(error.code == .stateUnavailable)
        #expect(error.message == Self.fullDisk)
        #expect(!error.tookEffect)
    }

    /// What a library older than `stateUnavailable` did with it, as it does with any code newer than itself.
    @Test func aCodeTheLibraryDoesNotKnowIsAnUnexpectedReplyNamingIt() {
        let error = AudioSessionError(ErrorBody(code: "diskOnFire", message: Self.fullDisk))
        #expect(error.code == .unexpectedReply)
        #expect(error.message == "diskOnFire: \(Self.fullDisk)")
    }

    /// Every code the daemon sends is one the library knows.
    @Test func theDaemonsProtocolCodesAreTheLibrarys() {
        let protocolCodes: [ProtocolError.Code] = [
            .malformedMessage, .messageTooLarge, .unknownOperation, .missingField, .unknownField, .badField,
            .notPermitted, .stateUnavailable,
        ]
        for code in protocolCodes { #expect(AudioSessionError.Code(rawValue: code.rawValue) != nil, "\(code)") }
    }
}
