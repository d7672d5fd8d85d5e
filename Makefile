# audiosessiond: build, run, test and benchmark. `make run` and `make test` are the quick start; both
# install what is missing first (`make deps`).

SWIFT ?= swift
SCENARIOS ?= Tests/Scenarios
CTL = .build/debug/audiosessionctl

.PHONY: all deps build run test bench clean

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

test: deps
	$(SWIFT) build
	$(SWIFT) build --build-tests
	$(SWIFT) test
	$(SWIFT) build --product audiosessionctl
	$(CTL) replay Tests/

bench: deps
	$(SWIFT) build -c release --product PolicyBenchmark
	.build/release/PolicyBenchmark

clean:
	rm -rf .build
