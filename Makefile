# ctrltest's tasks. Every tool is pinned in hack/tools/go.mod (`tool`
# directives; a module of its own, so that the tools are not in the module
# graph of ctrltest's users) and run with `go tool -modfile`; nothing is
# installed by hand.

GO        ?= go
TOOLS     := $(CURDIR)/hack/tools/go.mod
PKGS      ?= ./...
BENCH     ?= .
COUNT     ?= 6
BENCHTIME ?= 1x

# MODULES are the modules of their own besides the core module (.), so that
# the core module never requires their dependencies: crd (the CRD option),
# kube (kube-apiserver's rules for built-in types, k8s.io/kubernetes), parity (its tests skip until hack/parity-binaries.sh has built a
# kube-apiserver), ctrlruntime (requires controller-runtime),
# ctrlruntime/examples/parity (the ctrlruntime examples' parity tests, so
# that ctrlruntime does not require parity), examples/legacyscheme and
# examples/kcm (k8s.io/kubernetes). A new module is added here, in one
# place: vet, lint, test-all, verify-go-line and mod-download loop
# over this list (and to QUICK_MODULES or API_MODULES when it belongs
# there).
MODULES       := crd kube examples/legacyscheme examples/kcm examples/servicecontroller parity ctrlruntime ctrlruntime/examples/parity
# QUICK_MODULES are the modules that `make test` vets and tests besides the
# core module: what a contributor needs on a fresh machine, in minutes.
QUICK_MODULES := crd
# API_MODULES are the modules whose packages are public API, listed in
# api/<module>.txt (the core module's in api/ctrltest.txt; make api).
API_MODULES   := crd kube ctrlruntime parity
API_DIR       ?= api

# each runs $(2) in each module directory of $(1), stopping at the first
# failure, and prints what it runs.
each = set -e; for m in $(1); do echo "cd $$m && $(2)"; (cd $$m && $(2)); done

.PHONY: all test test-all vet-others unit-others test-minors differential unit-quick vet vet-quick lint codegen verify-codegen verify-go-line verify-doc-paths api verify-api mod-download example bench binary-size golden verify-golden parity fuzz

all: lint test-all

## test: what a contributor runs on a fresh machine (README): go vet and
## race-enabled tests of the core module and of QUICK_MODULES, the
## generated-code check, the go-line check and the documentation's paths.
test: vet-quick unit-quick differential verify-codegen verify-go-line verify-doc-paths

## test-all: the whole suite, as CI runs it: test, plus go vet and
## race-enabled tests of the other modules (MODULES but QUICK_MODULES), and
## the API listing check. `make test test-all` runs test's part once.
test-all: test vet-others unit-others verify-api

# OTHER_MODULES are the modules test-all adds to test's.
OTHER_MODULES := $(filter-out $(QUICK_MODULES),$(MODULES))

vet-others:
	@$(call each,$(OTHER_MODULES),$(GO) vet -race ./...)

unit-others:
	@$(call each,$(OTHER_MODULES),$(GO) test -race -count=1 ./...)

## test-minors: the core module, crd and ctrlruntime on every supported
## Kubernetes minor of hack/minors.txt that their go.mod does not require
## (test-all tests that one), each in a switched copy of the tree, and a
## consumer module pinned to each minor's client-go adding ctrltest without
## a k8s.io module raised (hack/minors.sh; MINORS_ALL=1 tests every minor).
test-minors:
	hack/minors.sh

## verify-doc-paths: the repository paths the docs name exist.
verify-doc-paths:
	hack/verify-doc-paths.sh

## verify-go-line: go.mod's go line (and each module's of MODULES) is the
## highest go line of the dependencies, not a patch release that would force
## users to raise theirs.
verify-go-line:
	hack/verify-go-line.sh . $(MODULES)

## mod-download: download every module's dependencies and the tools'.
mod-download:
	$(GO) mod download
	@$(call each,$(MODULES) hack/tools,$(GO) mod download)

## differential: the core model against kube-apiserver's own registry
## code (the kube module, issue 34): the request sequences of
## TestDifferential and the stored objects of
## TestModelPreparesAsTheStrategies, without -race (make test-all runs
## the kube module whole, with it). The first run builds k8s.io/kubernetes'
## packages (about half a minute on 2 cores), later ones take seconds.
differential:
	cd kube && $(GO) test -count=1 -run '^(TestDifferential|TestModelPreparesAsTheStrategies)$$' .

unit-quick:
	$(GO) test -race -count=1 $(PKGS)
	@$(call each,$(QUICK_MODULES),$(GO) test -race -count=1 ./...)

# vet builds with -race, as the tests do, so that the tests reuse what vet
# compiled: on an empty build cache, a plain go vet ./golden left 467
# compiles to go test -race, go vet -race 9.
vet-quick:
	$(GO) vet -race $(PKGS)
	@$(call each,$(QUICK_MODULES),$(GO) vet -race ./...)

vet:
	$(GO) vet -race $(PKGS)
	@$(call each,$(MODULES),$(GO) vet -race ./...)

## lint: gofmt must print nothing; go vet; staticcheck (not of generated
## code); the API listing check (verify-api).
lint: vet verify-api
	@out="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))"; \
	if [ -n "$$out" ]; then echo "gofmt -l reports unformatted files:"; echo "$$out"; exit 1; fi
	$(GO) tool -modfile=$(TOOLS) staticcheck $$($(GO) list $(PKGS) | grep -v -e /generated/ -e /noschema/)
	@$(call each,$(MODULES),$(GO) tool -modfile=$(TOOLS) staticcheck ./...)

## api: write the public API, one line per exported identifier of every
## package but internal/, examples/ and the reference controller, to
## api/ctrltest.txt and api/<module>.txt for each of API_MODULES
## (hack/apilist; as the Go project keeps api/go1.N.txt).
api:
	@mkdir -p $(API_DIR)
	$(GO) run ./hack/apilist -exclude controller/,hack/ -o $(API_DIR)/ctrltest.txt .
	@set -e; for m in $(API_MODULES); do f="$(API_DIR)/$$(echo $$m | tr / -).txt"; echo "$(GO) run ./hack/apilist -o $$f ./$$m"; $(GO) run ./hack/apilist -o "$$f" "./$$m"; done

## verify-api: fail when api/ is not what make api writes: an exported
## identifier was added, changed or removed without api/ saying so.
verify-api:
	@tmp="$$(mktemp -d)"; trap 'rm -rf "$$tmp"' EXIT; \
	$(MAKE) -s api API_DIR="$$tmp" >/dev/null && \
	if ! diff -ru $(API_DIR) "$$tmp"; then \
		echo "verify-api: api/ differs from the exported identifiers of the code (- the file, + the code)."; \
		echo "  Fix: make api, then review and commit api/ (a removed or changed line breaks users; see docs/migrating.md)."; \
		exit 1; \
	fi

## codegen: regenerate the reference controller's clients, listers and
## informers (k8s.io/code-generator of the oldest supported minor, pinned in
## hack/tools: generated code compiles on later minors, not earlier ones),
## and internal/resources' table of client-go's clientset, read off each
## supported minor's (hack/kube-resources/run.sh).
codegen:
	hack/update-codegen.sh

## verify-codegen: fail when a generated file is stale or was edited by
## hand; the resource table's rows of the newest minor are regenerated
## against it (make test-minors checks each minor's rows on that minor).
verify-codegen:
	hack/verify-codegen.sh

## example: run the example suites verbosely, to show what the library does.
example:
	$(GO) test -count=1 -v ./examples/...
	cd ctrlruntime && $(GO) test -count=1 -v ./examples/...

## golden: rewrite every golden file of the tree from this run's results.
golden:
	CTRLTEST_UPDATE=1 $(GO) test -count=1 $(PKGS)
	cd ctrlruntime && CTRLTEST_UPDATE=1 $(GO) test -count=1 ./...

## verify-golden: fail when a golden file is stale (produced by no test) or
## when rewriting the golden files would change or add one. Rewrites them in
## place, so run it on a clean checkout (as CI does).
verify-golden:
	CTRLTEST_UPDATE=1 $(GO) test -count=1 $(PKGS)
	cd ctrlruntime && CTRLTEST_UPDATE=1 $(GO) test -count=1 ./...
	@git diff --exit-code --stat -- '*.golden.yaml' || { echo "verify-golden: golden files are out of date; run 'make golden' and review the diff"; exit 1; }
	@new="$$(git ls-files --others --exclude-standard -- '*.golden.yaml')"; \
	if [ -n "$$new" ]; then echo "verify-golden: golden files not committed:"; echo "$$new"; exit 1; fi

## bench: run the benchmarks COUNT times, BENCHTIME each, and summarize them
## with benchstat, the implementations side by side (-col /impl: ctrltest
## against the hand-written fixture). BENCHTIME=1x runs one op per benchmark and count, which
## bounds internal/bench's slowest cases (tens of seconds an op); there is no
## test timeout. See docs/performance.md.
bench:
	@mkdir -p .bench
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -benchtime $(BENCHTIME) -count $(COUNT) -timeout 0 $(PKGS) | tee .bench/new.txt
	cd ctrlruntime && $(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -benchtime $(BENCHTIME) -count $(COUNT) -timeout 0 ./... | tee -a ../.bench/new.txt
	cd ctrlruntime/examples/parity && $(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -benchtime $(BENCHTIME) -count $(COUNT) -timeout 0 ./... | tee -a ../../../.bench/new.txt
	cd examples/kcm && $(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -benchtime $(BENCHTIME) -count $(COUNT) -timeout 0 ./... | tee -a ../../.bench/new.txt
	$(GO) tool -modfile=$(TOOLS) benchstat -col /impl .bench/new.txt

## binary-size: the size of a controller test binary with ctrltest against
## the hand-written fixture's, and what keeps the linker from dropping
## unused methods (hack/binary-size.sh; docs/performance.md).
binary-size:
	hack/binary-size.sh

## parity: run the example tables, the semantics suite (parity/semantics),
## the ctrlruntime examples' reconciler tables (ctrlruntime/examples/parity)
## and kube-controller-manager's controllers' tables (examples/kcm's Parity
## tests) on the fixture's world and on a real API server, and print the
## reports.
## Builds kube-apiserver and etcd from the Go module proxy on first use
## (hack/parity-binaries.sh; minutes, then cached in .cache/parity; nothing
## is installed). With CTRLTEST_PARITY_KUBECONFIG set, runs against that
## cluster instead and builds nothing.
PARITY_REPORT ?= $(CURDIR)/.cache/parity/report.txt
parity:
	@if [ -z "$$CTRLTEST_PARITY_KUBECONFIG" ]; then hack/parity-binaries.sh; fi
	@mkdir -p $(dir $(PARITY_REPORT)) && rm -f $(PARITY_REPORT)
	@cd parity && CTRLTEST_PARITY_REQUIRED=1 CTRLTEST_PARITY_BIN=$(CURDIR)/.cache/parity/bin CTRLTEST_PARITY_REPORT=$(PARITY_REPORT) \
		$(GO) test -race -count=1 ./... && cd ../ctrlruntime/examples/parity && CTRLTEST_PARITY_REQUIRED=1 CTRLTEST_PARITY_BIN=$(CURDIR)/.cache/parity/bin CTRLTEST_PARITY_REPORT=$(PARITY_REPORT) \
		$(GO) test -race -count=1 ./... && cd ../../../examples/kcm && CTRLTEST_KCM_PARITY=1 CTRLTEST_PARITY_REQUIRED=1 CTRLTEST_PARITY_BIN=$(CURDIR)/.cache/parity/bin CTRLTEST_PARITY_REPORT=$(PARITY_REPORT) \
		$(GO) test -race -count=1 -run Parity .; rc=$$?; \
		echo; echo "Parity reports ($(PARITY_REPORT)):"; cat $(PARITY_REPORT) 2>/dev/null; exit $$rc

## fuzz: the differential fuzzer (parity/fuzz): random request sequences on
## the server model and on kube-apiserver, compared after every request;
## its fixed seeds, then fresh seeds (printed) for FUZZTIME. FUZZSEED=n[,m]
## replays those seeds only (FUZZKEEP=i,j,... keeps those requests of it, as
## a reproducer prints). make parity runs it too, for a minute.
FUZZTIME ?= 5m
FUZZSEED ?=
FUZZKEEP ?=
fuzz:
	@if [ -z "$$CTRLTEST_PARITY_KUBECONFIG" ]; then hack/parity-binaries.sh; fi
	cd parity && CTRLTEST_PARITY_REQUIRED=1 CTRLTEST_PARITY_BIN=$(CURDIR)/.cache/parity/bin \
		CTRLTEST_FUZZ_TIME=$(FUZZTIME) CTRLTEST_FUZZ_SEED=$(FUZZSEED) CTRLTEST_FUZZ_KEEP=$(FUZZKEEP) \
		$(GO) test -count=1 -timeout 0 -run '^TestFuzz(FieldManaged)?$$' -v ./fuzz/
