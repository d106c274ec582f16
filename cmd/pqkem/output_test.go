package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"
)

// holdEnv asks a child process to stop at a stage of writing its outputs
// (see testHookOutputs), saying so on standard error, until it is killed.
const holdEnv = "PQKEM_TEST_HOLD"

// holdLine is what a child process holding at stage prints.
func holdLine(stage string) string { return "pqkem-test: holding at " + stage + "\n" }

// testMainHooks sets up the hooks a child process (see TestMain) is asked
// for in its environment.
func testMainHooks() {
	if stage := os.Getenv(holdEnv); stage != "" {
		testHookOutputs = func(s string) {
			if s != stage {
				return
			}
			fmt.Fprint(os.Stderr, holdLine(s))
			time.Sleep(time.Hour)
			os.Exit(99)
		}
	}
}

// tempRE matches the name of a temporary file of the output key.pem.
var tempRE = regexp.MustCompile(`^\.key\.pem\.pqkem-tmp-[0-9a-f]{12}$`)

// TestOutputSameFile checks that two outputs that are the same file under
// different names are refused, with -force or without, before anything
// is written, as is an output that is an input.
func TestOutputSameFile(t *testing.T) {
	dir := t.TempDir()
	ok(t, dir, nil, "keygen", "-alg", "ML-KEM-768", "-out", "key.pem")
	ok(t, dir, nil, "pub", "-in", "key.pem", "-out", "pub.pem")
	key, pub := readFile(t, dir, "key.pem"), readFile(t, dir, "pub.pem")
	abs := func(name string) string { return filepath.Join(dir, name) }
	before := listDir(t, dir)
	for _, tc := range []struct {
		args []string
		want string
	}{
		// Neither exists: the same name in the same directory.
		{[]string{"encap", "-pub", "pub.pem", "-out", "a", "-secret", abs("a")}, "two outputs are the same file: a and " + abs("a")},
		{[]string{"encap", "-pub", "pub.pem", "-out", "a", "-secret", abs("a"), "-force"}, "two outputs are the same file"},
		{[]string{"encap", "-pub", "pub.pem", "-out", "a", "-secret", "../" + filepath.Base(dir) + "/a", "-force"}, "two outputs are the same file"},
		// An output is an input.
		{[]string{"pub", "-in", "key.pem", "-out", "key.pem", "-force"}, "key.pem is the input key.pem"},
		{[]string{"pub", "-in", "key.pem", "-out", abs("key.pem"), "-force"}, "is the input key.pem"},
		{[]string{"encap", "-pub", "pub.pem", "-out", "pub.pem", "-secret", "ss", "-force"}, "pub.pem is the input pub.pem"},
		{[]string{"encap", "-pub", "pub.pem", "-out", "ct", "-secret", "./pub.pem", "-force"}, "./pub.pem is the input pub.pem"},
		{[]string{"decap", "-key", "key.pem", "-in", "pub.pem", "-secret", "key.pem", "-force"}, "key.pem is the input key.pem"},
		{[]string{"decap", "-key", "key.pem", "-in", "pub.pem", "-secret", "pub.pem", "-force"}, "pub.pem is the input pub.pem"},
	} {
		wantFailure(t, binary(t, dir, nil, tc.args...), exitUsage, tc.want)
	}
	wantNoNewFiles(t, dir, before)

	// Hard links: the same file under two names.
	if err := os.Link(abs("key.pem"), abs("key-link.pem")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	ok(t, dir, nil, "encap", "-pub", "pub.pem", "-out", "ct", "-secret", "ss")
	if err := os.Link(abs("ct"), abs("ct-link")); err != nil {
		t.Fatal(err)
	}
	wantFailure(t, binary(t, dir, nil, "pub", "-in", "key-link.pem", "-out", "key.pem", "-force"), exitUsage, "key.pem is the input key-link.pem")
	wantFailure(t, binary(t, dir, nil, "encap", "-pub", "pub.pem", "-out", "ct", "-secret", "ct-link", "-force"), exitUsage, "two outputs are the same file: ct and ct-link")

	// Standard input is an input, and standard output an output, like
	// the files they are.
	f, err := os.Open(abs("key.pem"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := command(t, "pub", "-in", "-", "-out", "key-link.pem", "-force")
	cmd.Dir, cmd.Stdin = dir, f
	wantFailure(t, run(t, cmd), exitUsage, "key-link.pem is the input standard input")
	out, err := os.OpenFile(abs("ss"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd = command(t, "encap", "-pub", "pub.pem", "-out", "-", "-secret", "ss", "-force")
	cmd.Dir, cmd.Stdout = dir, out
	wantFailure(t, run(t, cmd), exitUsage, "two outputs are the same file: standard output and ss")

	if !bytes.Equal(readFile(t, dir, "key.pem"), key) || !bytes.Equal(readFile(t, dir, "pub.pem"), pub) {
		t.Error("a refused command changed its input")
	}
	if names := listDir(t, dir); !slices.Equal(names, []string{"ct", "ct-link", "key-link.pem", "key.pem", "pub.pem", "ss"}) {
		t.Errorf("files in the directory: %v", names)
	}
}
