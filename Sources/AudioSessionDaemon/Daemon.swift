import AudioSessionDaemonCore
import AudioSessionPolicy
import FoundationEssentials
import Logging
import ServiceLifecycle
import UnixSignals

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon: the control server, the policy loop, the PulseAudio backend (unless told otherwise), the
/// configuration reloader and, under systemd, its notifier, run as one service group that shuts down gracefully
/// on SIGTERM and SIGINT.
public enum Daemon {
    public static func run(_ options: DaemonOptions, logger: Logger = Logger(label: "audiosessiond")) async throws {
        let (inputs, feed) = AsyncStream<DaemonInput>.makeStream()
        let outboxes = Outboxes()
        let configuration = options.configuration
        // What the user set before (switch, lock, output) comes back; the stream journal is recovered from
        // when the sound server connects.
        let state = try options.stateDirectory.flatMap { try StateDirectory.open($0, logger: logger) }
        let settings = StateSettings.load(from: state, logger: logger) ?? StateSettings()
        let screenLocked = settings.screenLockedNow(bootID: StateSettings.currentBootID)
        // With no sound server there is no device to learn ports from: the device is a speaker and a microphone.
        let engine = PolicyEngine(
            config: configuration.policy,
            outputs: options.soundServer ? [] : [.speaker],
            inputs: options.soundServer ? [] : [.builtInMic],
            silentSwitch: settings.silentSwitch,
            screenLocked: screenLocked
        )
        var core = DaemonCore(engine: engine, controlUserID: getuid(), soundServer: options.soundServer)
        core.fileIdentity = { FileIdentity.of(path: $0) }
        core.outputMemory.selection = settings.selectedOutput
        core.callExemptClients = configuration.callExemptClients
        // With jacks to read, their inventory brings the ports first and restores the selection after it, as a
        // sound server's does; restoring now would find a jack's port (headphones) not there yet and drop it.
        let jacksWillTakeInventory = options.alsa && configuration.alsa.jackCard != nil
        if !options.soundServer && !jacksWillTakeInventory { core.restoreOutputSelection() }
        if let state {
            logger.notice(
                "state in \(state.path): silent switch \(settings.silentSwitch.rawValue), screen \(screenLocked ? "locked" : "unlocked"), selected output \(settings.selectedOutput?.rawValue ?? "none")"
            )
        }
        // Nil unless systemd listens (NOTIFY_SOCKET): then the others report to it how far they are.
        let systemd = SystemdService.make(
            options.systemd,
            soundServer: options.soundServer,
            inputs: feed,
            outboxes: outboxes,
            logger: logger
        )
        // Start-up's pages (its code, the libraries' binding) are given back once the socket listens and the sound
        // server's streams are known.
        let startup = StartupCode(soundServer: options.soundServer) {
            let bytes = StartupCode.unmapReadOnlySegments()
            logger.debug(
                "started: start-up's pages given back (the read-only segments of the program and its libraries, \(bytes >> 20) MB, unmapped)"
            )
        }
        var services: [any Service] = []
        var pulse: PulseService?
        if options.soundServer {
            pulse = PulseService(
                server: options.pulseServer,
                inputs: feed,
                rules: configuration.ports,
                fadeMilliseconds: configuration.policy.duckFadeMs,
                logger: logger,
                journalPath: state?.file(JournalStreams.fileName),
                connectionChanged: { connected in
                    systemd?.soundServerConnected(connected)
                    if connected { startup.reached(.soundServerInventoryTaken) }
                }
            )
            services.append(pulse!)
        }
        // No sound server: the configuration's ALSA mixer control and jacks, when asked for.
        var mixer: AlsaMixerService?
        if let state, options.alsa == false || configuration.alsa.mixer == nil,
            FileManager.default.fileExists(atPath: state.file(AlsaMixerService.journalFileName))
        {
            // A daemon that died holding a mixer control muted, and this one will not touch a mixer: say so, or
            // the user is left wondering why the sound is off.
            logger.warning(
                "\(state.file(AlsaMixerService.journalFileName)): an earlier daemon held an ALSA mixer control muted for the silent switch and this one has no mixer configured; it is left as it is: unmute it (alsamixer), or start the daemon with that mixer again to give it back"
            )
        }
        if options.alsa {
            if let control = configuration.alsa.mixer {
                mixer = AlsaMixerService(
                    control: control,
                    inputs: feed,
                    logger: logger,
                    journalPath: state?.file(AlsaMixerService.journalFileName)
                )
                services.append(mixer!)
            }
            if let card = configuration.alsa.jackCard {
                services.append(AlsaJackService(card: card, settings: configuration.alsa, inputs: feed, logger: logger))
            }
        }
        // The switch from feedbackd, the lock from logind or the screensaver (docs/DBUS.md).
        var platform: PlatformBusService?
        let platformSettings = configuration.platform
        let lockNeedsOnlyTheSystemBus = platformSettings.lock == .logind || platformSettings.lock == .auto
        if options.buses.session == nil {
            logger.notice(
                "no session bus: the switch and the lock come only from the control socket (feedbackd and the screensaver are not followed); media players are not paused, they are muted as unaware apps\(options.dbusFace == .session ? "; the D-Bus interface is not served" : "")"
            )
        }
        if options.buses.session != nil || (options.buses.system != nil && lockNeedsOnlyTheSystemBus) {
            platform = PlatformBusService(buses: options.buses, settings: platformSettings, inputs: feed, logger: logger)
            services.append(platform!)
        }
        // Section 6b: the media players on the session bus, when there is one (else they are muted as the unaware
        // apps they are, and the log says so).
        let players = PlayerBusService.onSessionBus(options.buses.session, inputs: feed, logger: logger)
        if let players { services.append(players) }
        let policy = PolicyService(
            core: core,
            inputs: inputs,
            feedback: feed,
            outboxes: outboxes,
            enforcer: pulse,
            mixer: mixer,
            players: players,
            platform: platform,
            logger: logger,
            keeper: state.map {
                StateKeeper(directory: $0, settings: settings, eventLogLimit: options.eventLogLimit, logger: logger)
            }
        )
        services.append(policy)
        // The server's facts are decided on in the sound server's own turn, without a hop through the policy's loop.
        pulse?.decide(with: policy)
        services.append(
            ControlServer(
                path: options.socketPath,
                mode: configuration.socketMode,
                group: configuration.socketGroup,
                listeningSocket: options.systemd.listeningSocket,
                inputs: feed,
                outboxes: outboxes,
                logger: logger,
                ready: { [onReady = options.onReady] in
                    onReady?()
                    systemd?.socketListening()
                    startup.reached(.controlSocketListening)
                }
            )
        )
        // The D-Bus interface, stopped before the policy loop (services stop in reverse).
        services.append(
            FaceService(bus: options.dbusFace, buses: options.buses, inputs: feed, outboxes: outboxes, logger: logger)
        )
        if options.systemd.passedDescriptorCount > 1 {
            logger.warning("systemd passed \(options.systemd.passedDescriptorCount) sockets; serving the first only")
        }
        if let path = options.configurationPath {
            services.append(
                ConfigurationReloader(
                    path: path,
                    hangups: await UnixSignalsSequence(trapping: .sighup),
                    inputs: feed,
                    pulse: pulse,
                    logger: logger,
                    running: configuration,
                    reloadsLogLevel: !options.logLevelFromCommandLine,
                    reloading: { systemd?.reloading($0) }
                )
            )
        }
        if let systemd { services.append(systemd) }
        // Shut down in reverse: tell systemd (STOPPING=1), stop reloading and taking requests, stop deciding, then
        // give every stream back its user's values.
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) },
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        try await group.run()
        withExtendedLifetime(state) {}
    }
}
