package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestPrintVersion(t *testing.T) {
	for _, c := range []struct {
		info *debug.BuildInfo
		want string
	}{
		{nil, "pqkem (unknown) "},
		{&debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}}, "pqkem v1.2.0 "},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.time", Value: "2026-12-02T10:00:00Z"}, {Key: "vcs.modified", Value: "true"},
		}}, "pqkem (devel) 0123abcd+dirty 2026-12-02T10:00:00Z "},
	} {
		var b strings.Builder
		if err := printVersion(&b, c.info); err != nil {
			t.Fatal(err)
		}
		want := c.want + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
		if b.String() != want {
			t.Errorf("got %q, want %q", b.String(), want)
		}
	}
}

// A binary built from this checkout names its revision.
func TestVersionCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command; skipped with -short")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git to compare the revision with")
	}
	rev, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	// The go command stamps the revision only where .git is a directory:
	// not in a worktree (git worktree add), where it is a file.
	if top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output(); err == nil {
		if fi, err := os.Stat(filepath.Join(strings.TrimSpace(string(top)), ".git")); err == nil && !fi.IsDir() {
			t.Skip("a git worktree: the go command records no revision")
		}
	}
	bin := t.TempDir() + "/pqkem"
	if out, err := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`^pqkem \S+ ` + strings.TrimSpace(string(rev)) + `(\+dirty)? \S+ go\S+ \w+/\w+\n$`)
	if !re.Match(out) {
		t.Errorf("pqkem version: %q, want the revision %s", out, strings.TrimSpace(string(rev)))
	}
}
