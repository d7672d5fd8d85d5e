internal import CAlsa
internal import CAlsaShim
import Glibc

/// The thin layer under every libasound call: return codes become `AlsaError`s, and ALSA's own stderr
/// messages are silenced so that the typed error is the only report.
enum Alsa {
    /// Installs the silent error handler once per process, before the first ALSA call (a lazy global is
    /// initialised exactly once, thread-safely).
    static let silenced: Void = audiosessiond_alsa_silence_errors()

    /// ALSA's text for a negative error code (`snd_strerror`).
    static func text(_ result: Int32) -> String {
        guard let text = snd_strerror(result) else { return "error \(result)" }
        return String(cString: text)
    }

    /// The code for an error opening or using `device`: missing and busy devices are told apart, the rest
    /// is `fallback`.
    static func code(for result: Int32, fallback: AlsaError.Code) -> AlsaError.Code {
        switch -result {
        case ENOENT, ENODEV, ENXIO: return .deviceNotFound
        case EBUSY: return .deviceBusy
        default: return fallback
        }
    }

    /// Throws unless `result` is non-negative; the message is "`what`: ALSA's text".
    @discardableResult
    static func check(
        _ result: Int32,
        _ what: @autoclosure () -> String,
        device: String,
        fallback: AlsaError.Code = .io
    ) throws -> Int32 {
        guard result < 0 else { return result }
        throw AlsaError(
            code: code(for: result, fallback: fallback),
            message: "\(what()): \(text(result))",
            device: device
        )
    }
}

/// The C library's text for an errno value.
func errnoText(_ number: Int32) -> String {
    String(cString: strerror(number))
}
