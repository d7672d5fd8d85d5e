import ArgumentParser
import AudioSessionProtocol

/// `audiosessionctl volume [LEVEL]`: the system volume on the ALSA mixer control of a daemon without a sound
/// server. With no level, prints it.
struct VolumeCommand: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "volume",
        abstract: "Show or set the system volume (daemons without a sound server: the ALSA mixer control).",
        discussion:
            "LEVEL is a percentage (`40%`, or a whole number: `40`) or a fraction with a decimal point (`0.4`, `1.0`)."
    )

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The new volume: 0-100% or 0.0-1.0.")
    var level: String?

    func validate() throws {
        if let level { _ = try VolumeLevel.parse(level) }
    }

    func perform(output: inout some TextOutputStream, errors: inout some TextOutputStream) throws -> Int32 {
        if let level {
            _ = try connection.send(Request(.setVolume(try VolumeLevel.parse(level))))
            return 0
        }
        let status = try connection.connect().status()
        guard let volume = status.volume else {
            print(
                "the daemon has no mixer control (it runs with a sound server, or its ALSA mixer is off)",
                to: &errors
            )
            return 1
        }
        print(
            "volume: \(VolumeLevel.percent(volume))\(status.mixerMuted == true ? " (muted for the silent switch)" : "")",
            to: &output
        )
        return 0
    }
}

/// A volume as written on the command line: `40%` or `40` (a whole number is a percentage), or `0.4` (a number
/// with a decimal point is a fraction of full volume). So `1` is 1% and `1.0` is full volume.
struct VolumeLevel: ExpressibleByArgument {
    var fraction: Double

    init?(argument: String) {
        guard let fraction = try? Self.parse(argument) else { return nil }
        self.fraction = fraction
    }

    static func parse(_ text: String) throws -> Double {
        let percent = text.hasSuffix("%")
        let digits = percent ? String(text.dropLast()) : text
        guard let number = Double(digits), number.isFinite, number >= 0 else {
            throw ValidationError("'\(text)' is not a volume; write a percentage (40% or 40) or a fraction (0.4)")
        }
        let fraction = percent || !digits.contains(".") ? number / 100 : number
        guard fraction <= 1 else {
            throw ValidationError("'\(text)' is more than full volume; the most is 100% (or 1.0)")
        }
        return fraction
    }

    static func percent(_ fraction: Double) -> String { "\(Int((fraction * 100).rounded()))%" }
}
