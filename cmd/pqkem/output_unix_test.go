//go:build unix

package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pqkem/pqkem/keyfile"
)

// mknod makes a device file in dir, or skips the test where that is not
// allowed (it needs root, or CAP_MKNOD in a container).
func mknod(t *testing.T, dir, name string, mode uint32, major, minor int) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := syscall.Mknod(p, mode|0o666, major<<8|minor); err != nil {
		t.Skipf("cannot make the device %s for this test (it needs root): %v", name, err)
	}
	return p
}

func wantType(t *testing.T, path string, want fs.FileMode) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Type() != want {
		t.Errorf("%s is now %v, want type %v: replaced", path, fi.Mode(), want)
	}
}

// TestOutputCharDevice checks that a character device (a null device
// made with mknod, as /dev/null is) is written into, with -force or
// without, and never replaced by a file.
func TestOutputCharDevice(t *testing.T) {
	dir := t.TempDir()
	null := mknod(t, dir, "null", syscall.S_IFCHR, 1, 3)
	ok(t, dir, nil, "keygen", "-alg", "ML-KEM-768", "-out", "key.pem")
	ok(t, dir, nil, "pub", "-in", "key.pem", "-out", "pub.pem")
	for _, args := range [][]string{
		{"keygen", "-alg", "ML-KEM-768", "-out", "null"},
		{"keygen", "-alg", "ML-KEM-768", "-out", "null", "-force"},
		{"pub", "-in", "key.pem", "-out", null, "-force"},
		{"encap", "-pub", "pub.pem", "-out", "ct", "-secret", "null", "-force"},
		{"decap", "-key", "key.pem", "-in", "ct", "-secret", "null", "-force"},
	} {
		ok(t, dir, nil, args...)
		wantType(t, null, fs.ModeDevice|fs.ModeCharDevice)
	}
	// Two outputs into the one device are refused like two into a file.
	wantFailure(t, binary(t, dir, nil, "encap", "-pub", "pub.pem", "-out", null, "-secret", "null"), exitUsage, "two outputs are the same file")
	if names := listDir(t, dir); !slices.Equal(names, []string{"ct", "key.pem", "null", "pub.pem"}) {
		t.Errorf("files in the directory: %v", names)
	}
}

// TestOutputRefused checks that a block device, a directory and a
// symbolic link are refused, with -force too, and left as they were.
func TestOutputRefused(t *testing.T) {
	dir := t.TempDir()
	ok(t, dir, nil, "keygen", "-alg", "ML-KEM-512", "-out", "key.pem")
	key := readFile(t, dir, "key.pem")
	if err := os.Mkdir(filepath.Join(dir, "subdir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("key.pem", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("missing", filepath.Join(dir, "dangling")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, want string }{
		{"subdir", "subdir is a directory"},
		{"link", "link is a symbolic link"},
		{"dangling", "dangling is a symbolic link"},
	} {
		for _, force := range []bool{false, true} {
			args := []string{"keygen", "-alg", "ML-KEM-512", "-out", tc.name}
			if force {
				args = append(args, "-force")
			}
			wantFailure(t, binary(t, dir, nil, args...), exitError, tc.want)
		}
	}
	wantType(t, filepath.Join(dir, "subdir"), fs.ModeDir)
	wantType(t, filepath.Join(dir, "link"), fs.ModeSymlink)
	wantType(t, filepath.Join(dir, "dangling"), fs.ModeSymlink)
	if !bytes.Equal(readFile(t, dir, "key.pem"), key) {
		t.Error("the target of the link changed")
	}
	if names := listDir(t, dir); !slices.Equal(names, []string{"dangling", "key.pem", "link", "subdir"}) {
		t.Errorf("files in the directory: %v", names)
	}
	// A block device (made with mknod; the numbers are those of a loop
	// device, which is never opened).
	block := mknod(t, dir, "block", syscall.S_IFBLK, 7, 250)
	wantFailure(t, binary(t, dir, nil, "keygen", "-alg", "ML-KEM-512", "-out", "block", "-force"), exitError, "block is a block device")
	wantType(t, block, fs.ModeDevice)
}

// TestOutputPipe checks that a FIFO, and a symbolic link to a device or
// a pipe (as /dev/stdout is), are written into and stay what they are.
func TestOutputPipe(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("fifo", filepath.Join(dir, "fifo-link")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"fifo", "fifo-link"} {
		// The reader opens first, without waiting for a writer; the key
		// fits in the pipe's buffer, so the command need not wait for a
		// read either.
		r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			t.Fatal(err)
		}
		ok(t, dir, nil, "keygen", "-alg", "ML-KEM-512", "-out", name, "-force")
		r.SetReadDeadline(time.Now().Add(10 * time.Second))
		data, err := io.ReadAll(r)
		r.Close()
		if _, err2 := keyfile.DecodePrivateKey(data, nil); err != nil || err2 != nil {
			t.Errorf("keygen -out %s: the FIFO's reader got %d bytes: %v, %v", name, len(data), err, err2)
		}
	}
	wantType(t, fifo, fs.ModeNamedPipe)
	wantType(t, filepath.Join(dir, "fifo-link"), fs.ModeSymlink)

	// /dev/stdout, a link to standard output's pipe.
	if _, err := os.Stat("/dev/stdout"); err != nil {
		t.Skipf("no /dev/stdout: %v", err)
	}
	r := ok(t, dir, nil, "keygen", "-alg", "ML-KEM-512", "-out", "/dev/stdout")
	if _, err := keyfile.DecodePrivateKey([]byte(r.stdout), nil); err != nil {
		t.Errorf("keygen -out /dev/stdout: %v", err)
	}
}

// TestOutputStdoutFails checks that when standard output fails (a full
// device, a closed pipe), the command says so in one line, exits with
// status 1 (not 141, killed by SIGPIPE), and leaves no file: the file
// output is written only after standard output.
func TestOutputStdoutFails(t *testing.T) {
	dir := t.TempDir()
	ok(t, dir, nil, "keygen", "-alg", "ML-KEM-768", "-out", "key.pem")
	ok(t, dir, nil, "pub", "-in", "key.pem", "-out", "pub.pem")
	before := listDir(t, dir)
	commands := [][]string{
		{"encap", "-pub", "pub.pem", "-out", "-", "-secret", "ss.bin"},
		{"encap", "-pub", "pub.pem", "-out", "ct.bin", "-secret", "-"},
		{"keygen", "-alg", "ML-KEM-768", "-out", "-"},
		{"list"},
		{"inspect", "key.pem"},
	}
	check := func(t *testing.T, stdout *os.File, want string) {
		for _, args := range commands {
			cmd := command(t, args...)
			cmd.Dir, cmd.Stdout = dir, stdout
			r := run(t, cmd)
			wantFailure(t, r, exitError, "pqkem "+args[0]+": standard output: "+want)
			wantNoNewFiles(t, dir, before)
		}
	}
	t.Run("full", func(t *testing.T) {
		full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
		if err != nil {
			t.Skipf("no /dev/full: %v", err)
		}
		defer full.Close()
		check(t, full, syscall.ENOSPC.Error())
	})
	t.Run("closed pipe", func(t *testing.T) {
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		pr.Close()
		defer pw.Close()
		check(t, pw, syscall.EPIPE.Error())
	})
}

// startHeld starts the command with args in dir, asking it to hold at
// stage (see testMainHooks), and waits until it does. A stage of ""
// starts it without holding.
func startHeld(t *testing.T, dir, stage string, args ...string) (*exec.Cmd, *bufio.Reader) {
	t.Helper()
	cmd := command(t, args...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Env, holdEnv+"="+stage)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	r := bufio.NewReader(stderr)
	if stage != "" {
		line, err := r.ReadString('\n')
		if line != holdLine(stage) {
			t.Fatalf("pqkem %s did not hold at %q: %q, %v", strings.Join(args, " "), stage, line, err)
		}
	}
	return cmd, r
}

// waitSignalled waits for cmd, sent sig, and checks that it exited with
// 128 + sig and said why in one line.
func waitSignalled(t *testing.T, cmd *exec.Cmd, stderr *bufio.Reader, sig syscall.Signal) {
	t.Helper()
	rest, _ := io.ReadAll(stderr)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 128+int(sig) {
		t.Fatalf("after %v: %v, want exit status %d; stderr %q", sig, err, 128+int(sig), rest)
	}
	if want := "pqkem " + cmd.Args[1] + ": " + sig.String() + ": stopped, unfinished files removed\n"; string(rest) != want {
		t.Errorf("after %v: stderr %q, want %q", sig, rest, want)
	}
}

// TestOutputInterrupted checks that SIGINT or SIGTERM, while the
// temporary files are written or between two outputs, removes them and
// every output the run created.
func TestOutputInterrupted(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			cmd, stderr := startHeld(t, dir, "temporary files", "keygen", "-alg", "FrodoKEM-1344-SHAKE", "-out", "key.pem")
			// The temporary file is there, recognisable, and a secret.
			names := listDir(t, dir)
			if len(names) != 1 || !tempRE.MatchString(names[0]) {
				t.Fatalf("while writing key.pem: %v, want one .key.pem.pqkem-tmp-XXXXXXXXXXXX", names)
			}
			if fi, err := os.Stat(filepath.Join(dir, names[0])); err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("the temporary file: %v, %v; want mode 0600", fi.Mode(), err)
			}
			cmd.Process.Signal(sig)
			waitSignalled(t, cmd, stderr, sig)
			wantNoNewFiles(t, dir, nil)
		})
	}
	// Between the two outputs of encap: the first, created, goes too.
	dir := t.TempDir()
	ok(t, dir, nil, "keygen", "-alg", "ML-KEM-768", "-out", "key.pem")
	ok(t, dir, nil, "pub", "-in", "key.pem", "-out", "pub.pem")
	before := listDir(t, dir)
	cmd, stderr := startHeld(t, dir, "committed", "encap", "-pub", "pub.pem", "-out", "ct.bin", "-secret", "ss.bin")
	if names := listDir(t, dir); !slices.Contains(names, "ct.bin") {
		t.Fatalf("holding after the first output: %v, want ct.bin among them", names)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	waitSignalled(t, cmd, stderr, syscall.SIGTERM)
	wantNoNewFiles(t, dir, before)
}

// TestKeygenInterrupted sends SIGINT to FrodoKEM-1344 key generations at
// times spread over their run: each either completes, with a valid key
// and no other file, or stops with status 130 (or dies of the signal, if
// it came before main's handler) and no file at all.
func TestKeygenInterrupted(t *testing.T) {
	n := 20
	if testing.Short() {
		n = 5
	}
	var done, stopped int
	for i := range n {
		dir := t.TempDir()
		cmd, stderr := startHeld(t, dir, "", "keygen", "-alg", "FrodoKEM-1344-SHAKE", "-out", "key.pem")
		time.Sleep(time.Duration(i) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGINT)
		rest, _ := io.ReadAll(stderr)
		err := cmd.Wait()
		names := listDir(t, dir)
		switch {
		case err == nil:
			done++
			if !slices.Equal(names, []string{"key.pem"}) {
				t.Errorf("after %d ms: done, files %v, want key.pem alone", i, names)
			} else if _, err := keyfile.DecodePrivateKey(readFile(t, dir, "key.pem"), nil); err != nil {
				t.Errorf("after %d ms: key.pem: %v", i, err)
			}
		case cmd.ProcessState.ExitCode() == 130,
			cmd.ProcessState.Sys().(syscall.WaitStatus).Signaled(): // before main's handler
			stopped++
			if len(names) != 0 {
				t.Errorf("after %d ms: interrupted, files %v left", i, names)
			}
		default:
			t.Errorf("after %d ms: %v, stderr %q", i, err, rest)
		}
	}
	t.Logf("%d key generations completed, %d stopped", done, stopped)
}
