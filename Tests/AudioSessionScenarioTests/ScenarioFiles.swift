import AudioSessionScenario
import Foundation

/// The bundled scenario files, found from this source file's place in the repository.
enum ScenarioFiles {
    static let repositoryRoot = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let directory = repositoryRoot.appending(path: "Tests/Scenarios").path

    /// File names, for readable test case names.
    static let names: [String] = {
        let paths = (try? ScenarioLoader.scenarioFiles(in: [directory])) ?? []
        return paths.map { URL(filePath: $0).lastPathComponent }
    }()

    static func path(of name: String) -> String { directory + "/" + name }

    /// Writes `yaml` to a new temporary file and returns its path.
    static func temporary(_ yaml: String, name: String = "scenario.yaml") throws -> String {
        let folder = FileManager.default.temporaryDirectory.appending(path: "audiosession-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appending(path: name)
        try yaml.write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }
}
