# audiosessiond: build, run, test, benchmark and install. `make run` and `make test` are the quick start; both
# install what is missing first (`make deps`).

SWIFT ?= swift
SCENARIOS ?= Tests/Scenarios
CTL = .build/debug/audiosessionctl

# `make install` / `make uninstall` (docs/SYSTEMD.md): PREFIX and DESTDIR as usual. The configuration goes to /etc
# for PREFIX=/usr (a distribution's package) and beside any other prefix (/usr/local/etc, /opt/x/etc).
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
SYSCONFDIR ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
DOCDIR ?= $(PREFIX)/share/doc/audiosessiond
USERUNITDIR ?= $(PREFIX)/lib/systemd/user
SYSTEMUNITDIR ?= $(PREFIX)/lib/systemd/system
CONFIGURATION ?= release
CONFIG_FILE = $(DESTDIR)$(SYSCONFDIR)/audiosessiond/policy.yaml
UNITS = audiosessiond.service audiosessiond.socket
DOCS = README.md $(wildcard docs/*.md)
SUBSTITUTE = sed -e 's|@bindir@|$(BINDIR)|g' -e 's|@sysconfdir@|$(SYSCONFDIR)|g' -e 's|@docdir@|$(DOCDIR)|g'

.PHONY: all deps build run test examples bench bench-daemon clean install uninstall

all: build

# The Swift toolchain comes with the machine; Debian packages the project needs are installed when missing.
deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build

# The daemon, on this session's sound server, or on a private headless PulseAudio with virtual devices when
# there is none (the embedded default).
run: build
	scripts/run-daemon.sh

# Each step has a time limit and runs in a PID namespace of its own: a hang fails naming the step and its running
# tests, and nothing a step starts outlives it (scripts/test-step.sh, docs/TESTING.md).
STEP = scripts/test-step.sh

test: deps
	$(STEP) test-harness 120 bash scripts/check-test-step.sh
	$(STEP) build 1200 $(SWIFT) build
	$(STEP) build-tests 1200 $(SWIFT) build --build-tests
	$(STEP) verify-units 300 bash scripts/verify-units.sh
	$(STEP) swift-test 1200 $(SWIFT) test
	$(STEP) replay 300 $(CTL) replay Tests/
	$(STEP) examples 300 bash Examples/run-examples.sh
	$(STEP) make-run 600 bash scripts/check-make-run.sh

# The podcast player, navigation prompt and VoIP call examples together against the embedded default.
examples: deps
	$(SWIFT) build
	bash Examples/run-examples.sh

bench: deps
	$(SWIFT) build -c release --product PolicyBenchmark
	.build/release/PolicyBenchmark

# The daemon against PulseAudio's own modules on private servers, about 100 s (docs/BENCHMARKS.md).
bench-daemon: deps
	$(SWIFT) build -c release
	.build/release/DaemonBenchmark

clean:
	rm -rf .build

# The two programs, the configuration (a changed one is kept; the shipped one then goes beside it as
# policy.yaml.dist), the user and system units with their paths filled in, and the docs. No chown: DESTDIR
# staging works unprivileged.
install:
	$(SWIFT) build -c $(CONFIGURATION) --product audiosessiond
	$(SWIFT) build -c $(CONFIGURATION) --product audiosessionctl
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SYSCONFDIR)/audiosessiond $(DESTDIR)$(USERUNITDIR) \
		$(DESTDIR)$(SYSTEMUNITDIR) $(DESTDIR)$(DOCDIR)
	bin="$$($(SWIFT) build -c $(CONFIGURATION) --show-bin-path)" && \
		install -m 0755 "$$bin/audiosessiond" "$$bin/audiosessionctl" $(DESTDIR)$(BINDIR)/
	if [ -e $(CONFIG_FILE) ] && ! cmp -s Config/policy.yaml $(CONFIG_FILE); then \
		echo "install: keeping the changed $(CONFIG_FILE); the shipped one is $(CONFIG_FILE).dist"; \
		install -m 0644 Config/policy.yaml $(CONFIG_FILE).dist; \
	else \
		install -m 0644 Config/policy.yaml $(CONFIG_FILE); \
	fi
	for unit in $(UNITS); do \
		$(SUBSTITUTE) systemd/$$unit > $(DESTDIR)$(USERUNITDIR)/$$unit && chmod 0644 $(DESTDIR)$(USERUNITDIR)/$$unit && \
		$(SUBSTITUTE) systemd/system/$$unit > $(DESTDIR)$(SYSTEMUNITDIR)/$$unit && \
		chmod 0644 $(DESTDIR)$(SYSTEMUNITDIR)/$$unit || exit 1; \
	done
	install -m 0644 $(DOCS) $(DESTDIR)$(DOCDIR)/

# Removes what `make install` put there (with the same PREFIX and DESTDIR), and the folders that are the
# daemon's own. A configuration that differs from the shipped one is kept.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/audiosessiond $(DESTDIR)$(BINDIR)/audiosessionctl
	rm -f $(addprefix $(DESTDIR)$(USERUNITDIR)/,$(UNITS)) $(addprefix $(DESTDIR)$(SYSTEMUNITDIR)/,$(UNITS))
	rm -f $(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(DOCS))) $(CONFIG_FILE).dist
	if cmp -s Config/policy.yaml $(CONFIG_FILE); then rm -f $(CONFIG_FILE); \
	elif [ -e $(CONFIG_FILE) ]; then echo "uninstall: keeping the changed $(CONFIG_FILE)"; fi
	for dir in $(DESTDIR)$(DOCDIR) $(DESTDIR)$(SYSCONFDIR)/audiosessiond; do rmdir "$$dir" 2>/dev/null || true; done
