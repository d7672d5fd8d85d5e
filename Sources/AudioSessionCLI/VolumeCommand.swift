import ArgumentParser
import AudioSessionProtocol

/// `audiosessionctl volume [LEVEL]`: the system volume on the ALSA mixer control of a daemon without a sound
/// server. With no level, prints it.
struct VolumeCommand: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "volume",
        abstract: "Show or set the system volume (daemons without a sound server: the ALSA mixer control).",
        discussion: "LEVEL is a percentage (`40%` or `40`) or a fraction from 0 to 1 (`0.4`)."
    )

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The new volume: 0-100% or 0.0-1.0.")
    var level: VolumeLevel?

    func perform(output: inout some TextOutputStream, errors: inout some TextOutputStream) throws -> Int32 {
        if let level {
            var request = Request(op: .setVolume)
            request.volume = level.fraction
            _ = try connection.send(request)
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

/// A volume as written on the command line.
struct VolumeLevel: ExpressibleByArgument {
    var fraction: Double

    init?(argument: String) {
        let percent = argument.hasSuffix("%")
        guard let number = Double(percent ? String(argument.dropLast()) : argument), number >= 0 else { return nil }
        // A bare number above 1 is a percentage: `volume 40`.
        let fraction = percent || number > 1 ? number / 100 : number
        guard fraction <= 1 else { return nil }
        self.fraction = fraction
    }

    static func percent(_ fraction: Double) -> String { "\(Int((fraction * 100).rounded()))%" }
}
