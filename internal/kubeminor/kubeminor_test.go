package kubeminor

import (
	"bufio"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
)

func TestOf(t *testing.T) {
	tests := []struct {
		version string
		minor   int
		ok      bool
	}{
		{"v0.36.6", 36, true},
		{"v0.35.0", 35, true},
		{"v0.37.0-rc.1", 37, true},
		{"v0.38.0-alpha.0.0.20261101120000-abcdef123456", 38, true},
		{"v0.34.13", 34, true},
		{"", 0, false},
		{"(devel)", 0, false},
		{"v0.0.0", 0, false},
		{"v0.0.0-20261101120000-abcdef123456", 0, false},
		{"v1.37.2", 0, false},
		{"v0.x.1", 0, false},
	}
	for _, tt := range tests {
		minor, ok := Of(tt.version)
		if minor != tt.minor || ok != tt.ok {
			t.Errorf("Of(%q) = %d, %v; want %d, %v", tt.version, minor, ok, tt.minor, tt.ok)
		}
	}
}

func TestCheck(t *testing.T) {
	v := func(minor int, rest string) string { return "v0." + strconv.Itoa(minor) + rest }
	tests := []struct {
		version string
		want    string // a part of the error; "" for none
	}{
		{v(Oldest, ".0"), ""},
		{v(Oldest, ".10"), ""},
		{v(Newest, ".2"), ""},
		{v(Newest, ".3-0.20261201000000-abcdef123456"), ""},
		{v(Oldest-1, ".13"), "k8s.io/client-go " + v(Oldest-1, ".13") + " (Kubernetes 1." + strconv.Itoa(Oldest-1) + "); ctrltest supports " + Supported},
		{v(Newest+1, ".0"), "k8s.io/client-go " + v(Newest+1, ".0") + " (Kubernetes 1." + strconv.Itoa(Newest+1) + "); ctrltest supports " + Supported},
		{v(Newest+1, ".0-alpha.0"), "Kubernetes 1." + strconv.Itoa(Newest+1)},
		// Not judged: no build info, a directory replacement, the main
		// module's own version.
		{"", ""},
		{"(devel)", ""},
		{"v0.0.0", ""},
	}
	for _, tt := range tests {
		err := Check(tt.version)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("Check(%q) = %v, want nil", tt.version, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("Check(%q) = %v, want an error containing %q", tt.version, err, tt.want)
		}
	}
	// The message as a user on 1.38 would read it.
	if got, want := Check("v0.38.0"), "this test binary is built with k8s.io/client-go v0.38.0 (Kubernetes 1.38); ctrltest supports Kubernetes 1.35 to 1.37 (k8s.io/client-go v0.35.x to v0.37.x)"; Oldest == 35 && Newest == 37 && (got == nil || !strings.HasPrefix(got.Error(), want)) {
		t.Errorf("Check(v0.38.0) = %v, want it to start %q", got, want)
	}
}

func TestClientGo(t *testing.T) {
	tests := []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"no build info", nil, ""},
		{"no client-go", &debug.BuildInfo{Deps: []*debug.Module{{Path: "k8s.io/api", Version: "v0.36.6"}}}, ""},
		{"required", &debug.BuildInfo{Deps: []*debug.Module{{Path: "k8s.io/client-go", Version: "v0.36.6"}}}, "v0.36.6"},
		{"replaced by a version", &debug.BuildInfo{Deps: []*debug.Module{{Path: "k8s.io/client-go", Version: "v0.0.0", Replace: &debug.Module{Path: "k8s.io/client-go", Version: "v0.37.2"}}}}, "v0.37.2"},
		{"replaced by a directory", &debug.BuildInfo{Deps: []*debug.Module{{Path: "k8s.io/client-go", Version: "v0.0.0", Replace: &debug.Module{Path: "./staging/src/k8s.io/client-go"}}}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ClientGo(tt.bi); got != tt.want {
				t.Errorf("ClientGo = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFromPath(t *testing.T) {
	tests := []struct{ file, want string }{
		{"/root/go/pkg/mod/k8s.io/client-go@v0.36.6/tools/cache/shared_informer.go", "v0.36.6"},
		{"k8s.io/client-go@v0.38.0-alpha.0/tools/cache/shared_informer.go", "v0.38.0-alpha.0"},
		{"/src/app/vendor/k8s.io/client-go/tools/cache/shared_informer.go", ""},
		{"/home/me/kubernetes/staging/src/k8s.io/client-go/tools/cache/shared_informer.go", ""},
	}
	for _, tt := range tests {
		if got := FromPath(tt.file); got != tt.want {
			t.Errorf("FromPath(%q) = %q, want %q", tt.file, got, tt.want)
		}
	}
}

// This package's own test binary is built with a supported client-go (go
// test of the module, or hack/minors.sh's copies switched to each minor).
func TestRunning(t *testing.T) {
	version, minor := Running()
	if minor < Oldest || minor > Newest {
		t.Fatalf("Running() = %q, %d; want a minor from %d to %d", version, minor, Oldest, Newest)
	}
	if err := CheckRunning(); err != nil {
		t.Fatal(err)
	}
}

// Oldest and Newest are hack/minors.txt's first and last minors.
func TestMinorsFile(t *testing.T) {
	f, err := os.Open("../../hack/minors.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var minors []string
	for s := bufio.NewScanner(f); s.Scan(); {
		if fields := strings.Fields(s.Text()); len(fields) == 3 && !strings.HasPrefix(fields[0], "#") {
			minors = append(minors, fields[0])
			if m, ok := Of(fields[1]); !ok || "1."+itoa(m) != fields[0] {
				t.Errorf("hack/minors.txt: %s's k8s.io version %s is not of that minor", fields[0], fields[1])
			}
		}
	}
	if len(minors) == 0 || minors[0] != "1."+itoa(Oldest) || minors[len(minors)-1] != "1."+itoa(Newest) {
		t.Errorf("hack/minors.txt lists %v; want 1.%d first and 1.%d last (kubeminor.Oldest, Newest)", minors, Oldest, Newest)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
