package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/pqkem/pqkem/internal/cli"
)

// Writing a command's outputs, as the topic outputs tells the user: a new or
// regular file through a temporary file and a rename, a device or a pipe
// by writing into it, standard output before any file appears, and
// nothing left of a run that fails.

// tempInfix names the temporary files: .NAME.pqkem-tmp-XXXXXXXXXXXX.
const tempInfix = ".pqkem-tmp-"

// outFile is one output of a command: a file name ("-" for standard
// output), its contents and its mode.
type outFile struct {
	name string
	data []byte
	mode fs.FileMode
}

// outputs says how a command writes its outputs: whether -force lets it
// replace an existing regular file, and which inputs it read, which no
// output may replace.
type outputs struct {
	force  bool
	inputs []string // file names, "-" for standard input
}

// How a target is written, from what is at its name.
type targetKind int

const (
	toStdout  targetKind = iota // "-"
	toNew                       // nothing is at the name: a new file
	toReplace                   // a regular file, replaced (with -force)
	toStream                    // a character device or a pipe, written into
)

// target is an output and what is at its name.
type target struct {
	outFile
	kind targetKind
	// id is what is at the name: for a new file, its directory; for
	// standard output, the regular file it writes to, if it does. Targets
	// are compared by os.SameFile on it.
	id  fs.FileInfo
	tmp string // the temporary file of a new or replaced file
}

// check reports, before any work, an error that write would report
// before writing: an output that exists without -force, one that cannot
// be written, two outputs or an output and an input that are the same
// file.
func (o outputs) check(out *cli.Output, files ...outFile) error {
	_, err := o.plan(out, files)
	return err
}

// plan decides how each of files is written, and checks them as check
// says.
func (o outputs) plan(out *cli.Output, files []outFile) ([]*target, error) {
	var ts []*target
	for _, f := range files {
		if f.name == "" {
			continue
		}
		t := &target{outFile: f}
		if f.name == "-" {
			t.kind = toStdout
			if sf, ok := out.StdoutFile(); ok {
				if fi, err := sf.Stat(); err == nil && fi.Mode().IsRegular() {
					t.id = fi
				}
			}
		} else if err := o.locate(t); err != nil {
			return nil, err
		}
		for _, u := range ts {
			if t.kind == toStdout && u.kind == toStdout {
				return nil, cli.Usagef("only one output can go to standard output (-)")
			}
			if sameTarget(t, u) {
				return nil, cli.Usagef("two outputs are the same file: %s and %s", displayOut(u.name), displayOut(t.name))
			}
		}
		ts = append(ts, t)
	}
	for _, in := range o.inputs {
		fi := inputInfo(in)
		if fi == nil {
			continue
		}
		for _, t := range ts {
			if (t.kind == toReplace || t.kind == toStdout) && t.id != nil && os.SameFile(fi, t.id) {
				return nil, cli.Usagef("%s is the input %s: writing it would destroy what the command reads", displayOut(t.name), displayName(in))
			}
		}
	}
	return ts, nil
}

// locate finds out what is at the name of t, a file, and how to write it.
func (o outputs) locate(t *target) error {
	fi, err := os.Lstat(t.name)
	if errors.Is(err, fs.ErrNotExist) {
		dir := filepath.Dir(t.name)
		di, err := os.Stat(dir)
		if err != nil {
			return pathError(dir, err)
		}
		if !di.IsDir() {
			return fmt.Errorf("%s: not a directory", dir)
		}
		t.kind, t.id = toNew, di
		return nil
	}
	if err != nil {
		return pathError(t.name, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		// A link is followed to a device or a pipe only (/dev/stdout,
		// /dev/fd/N), which is written into; a link is never replaced.
		ti, err := os.Stat(t.name)
		if err != nil || !isStream(ti) {
			return fmt.Errorf("%s is a symbolic link: pqkem neither replaces one nor writes through it to a file; name the file itself", t.name)
		}
		fi = ti
	}
	switch {
	case fi.Mode().IsRegular():
		if !o.force {
			return fmt.Errorf("%s already exists; use -force to overwrite it", t.name)
		}
		t.kind = toReplace
	case isStream(fi):
		t.kind = toStream
	default:
		return fmt.Errorf("%s is %s: pqkem writes new and regular files, character devices and pipes, nothing else", t.name, describeType(fi.Mode()))
	}
	t.id = fi
	return nil
}

// isStream reports whether fi is a character device or a pipe: a file
// that is written into, not replaced.
func isStream(fi fs.FileInfo) bool {
	return fi.Mode()&(fs.ModeCharDevice|fs.ModeNamedPipe) != 0
}

func describeType(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}

// sameTarget reports whether t and u are the same file: the same file
// system object if both exist, the same name in the same directory if
// neither does.
func sameTarget(t, u *target) bool {
	if t.id == nil || u.id == nil || (t.kind == toNew) != (u.kind == toNew) {
		return false
	}
	if t.kind == toNew {
		return os.SameFile(t.id, u.id) && filepath.Base(t.name) == filepath.Base(u.name)
	}
	return os.SameFile(t.id, u.id)
}

// inputInfo returns what the input name is, if it is a regular file.
func inputInfo(name string) fs.FileInfo {
	var fi fs.FileInfo
	var err error
	if name == "-" {
		f, ok := stdin.(*os.File)
		if !ok {
			return nil
		}
		fi, err = f.Stat()
	} else {
		fi, err = os.Stat(name)
	}
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	return fi
}

func displayOut(name string) string {
	if name == "-" {
		return "standard output"
	}
	return name
}

// testHookOutputs, if set (by the tests' child processes), is called at
// each stage of write: "temporary files", once they are written, and
// "committed", after each file is in place.
var testHookOutputs func(stage string)

func hookOutputs(stage string) {
	if testHookOutputs != nil {
		testHookOutputs(stage)
	}
}

// write writes files as the topic outputs says: the temporary files first, then
// standard output, devices and pipes, in order, then the files are
// renamed into place. On any error, or on SIGINT or SIGTERM, the
// temporary files and the files it created are removed.
func (o outputs) write(out *cli.Output, files ...outFile) (err error) {
	ts, err := o.plan(out, files)
	if err != nil {
		return err
	}
	// The temporary files and the new files, to remove on failure. On
	// success the new files stay pending until the process exits (see
	// exit): an interrupt before then removes them too.
	var made []string
	defer func() {
		if err != nil {
			removePending(made...)
		}
	}()
	for _, t := range ts {
		if t.kind == toNew || t.kind == toReplace {
			if t.tmp, err = writeTemp(t.outFile); err != nil {
				return err
			}
			made = append(made, t.tmp)
		}
	}
	hookOutputs("temporary files")
	for _, t := range ts {
		switch t.kind {
		case toStdout:
			if _, err := out.Stdout.Write(t.data); err != nil {
				return err
			}
		case toStream:
			if err := writeStream(t); err != nil {
				return err
			}
		}
	}
	for _, t := range ts {
		if t.kind != toNew && t.kind != toReplace {
			continue
		}
		created, err := commit(t, o.force)
		if err != nil {
			return err
		}
		if created {
			made = append(made, t.name)
		}
		syncDir(filepath.Dir(t.name))
		hookOutputs("committed")
	}
	return nil
}

// writeTemp writes f's contents to a new temporary file next to f.name,
// which an interrupt removes.
func writeTemp(f outFile) (string, error) {
	dir, base := filepath.Dir(f.name), filepath.Base(f.name)
	var t *os.File
	err := errTempNames
	for range 100 {
		var r [6]byte
		rand.Read(r[:])
		name := filepath.Join(dir, "."+base+tempInfix+hex.EncodeToString(r[:]))
		// The mode is given from the start: a secret is never readable by
		// others, not even for a moment, and a public file gets the
		// permissions the user's umask allows.
		err = addPending(name, func() (err error) {
			t, err = os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, f.mode)
			return err
		})
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return "", fmt.Errorf("%s: cannot create a temporary file: %w", f.name, unwrapPath(err))
	}
	name := t.Name()
	_, err = t.Write(f.data)
	if err == nil {
		err = t.Sync()
	}
	if cerr := t.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		removePending(name)
		return "", fmt.Errorf("%s: %w", f.name, unwrapPath(err))
	}
	return name, nil
}

var errTempNames = errors.New("every name tried exists")

// writeStream writes into the device or pipe t.
func writeStream(t *target) error {
	f, err := os.OpenFile(t.name, os.O_WRONLY, 0) // no O_CREATE, no O_TRUNC
	if err != nil {
		return pathError(t.name, err)
	}
	if fi, err := f.Stat(); err != nil || !isStream(fi) {
		f.Close()
		return fmt.Errorf("%s changed while pqkem ran: it is no longer a device or a pipe", t.name)
	}
	_, err = f.Write(t.data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", t.name, unwrapPath(err))
	}
	return nil
}

// commit moves t's temporary file to its name, and reports whether that
// created the file. A new file is linked rather than renamed, which fails
// if a file appeared at the name meanwhile; a replaced file must still be
// a regular file (or gone).
func commit(t *target, force bool) (created bool, err error) {
	if t.kind == toNew {
		err := linkPending(t.tmp, t.name)
		if err == nil {
			return true, nil
		}
		exists := errors.Is(err, fs.ErrExist)
		if !exists {
			// A file system without hard links: check, then rename.
			_, err := os.Lstat(t.name)
			exists = err == nil
		}
		if exists && !force {
			return false, fmt.Errorf("%s already exists; use -force to overwrite it", t.name)
		}
	}
	fi, err := os.Lstat(t.name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return true, renamePending(t.tmp, t.name, true)
	case err != nil:
		return false, pathError(t.name, err)
	case !fi.Mode().IsRegular():
		return false, fmt.Errorf("%s changed while pqkem ran: it is no longer a regular file", t.name)
	}
	return false, renamePending(t.tmp, t.name, false)
}

func unwrapPath(err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err
	}
	if le, ok := errors.AsType[*os.LinkError](err); ok {
		return le.Err
	}
	return err
}

// syncDir makes a rename in dir durable, where the system allows it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
