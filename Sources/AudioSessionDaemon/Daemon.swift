// The daemon.
