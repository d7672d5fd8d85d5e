import ArgumentParser
import AudioSessionPolicy

// The policy's vocabularies, as command-line values: their raw names, and the list of them in `--help`.
extension AudioSessionPolicy.Category: ExpressibleByArgument {}
extension Mode: ExpressibleByArgument {}
extension Port: ExpressibleByArgument {}
extension SilentSwitch: ExpressibleByArgument {}

/// One category option by its name (`--option duckOthers`).
struct CategoryOptionArgument: ExpressibleByArgument {
    var option: CategoryOptions

    init?(argument: String) {
        guard let option = CategoryOptions(name: argument) else { return nil }
        self.option = option
    }

    static var allValueStrings: [String] { CategoryOptions.named.map(\.name) }
}
