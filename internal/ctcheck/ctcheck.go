// Package ctcheck finds division instructions in compiled Go packages.
//
// A hardware divider takes a time that depends on its operands on most
// CPUs, so a division of a secret leaks it: KyberSlash (2024) recovered
// ML-KEM keys from the division by q in the reference implementation's
// compression of the decrypted message. The test of this package compiles
// every package that handles secrets (internal/ctcompare,
// internal/fips203, internal/keccak, mlkem, hybrid, frodo, pake and the
// packages under them), for amd64 with
// and without the purego tag and for arm64, disassembles the objects and
// fails on any DIV, IDIV (amd64), UDIV or SDIV (arm64) or floating-point
// division outside an allowlist of functions that divide public values
// only, each with its reason.
//
// Package objects, not a linked binary, are checked, so every function is
// seen, even one no test or command calls. A package's archive holds one
// object for its Go code and one for each assembly file; every one of them
// is read (`go tool objdump` on the archive shows only the first). Go
// compiles a division by a constant into a multiplication and shifts, so
// x / q in Go source is not flagged, and need not be: only divisions by a
// variable reach the divider.
//
// `go tool objdump` names the functions, their code and source lines, but
// its amd64 decoder does not know most VEX (AVX2) and no EVEX (AVX-512)
// instructions: it prints "?" for a byte it cannot decode and goes on from
// the next one, misreading the rest of the instruction, and could turn the
// displacement of a VPBROADCASTW into a DIVL, or hide a real one. So for
// amd64 the code of each function goes to GNU objdump (binutils), which
// decodes them, and every byte of every function must decode: an
// instruction GNU objdump does not know, or one that runs past the end of
// its function, is an error, not a pass. The test also holds the
// decoding of every assembly function against the Go assembler's own
// listing of it (go build -asmflags=-S, see InStep): an instruction
// decoded where the assembler put one, and nowhere else. arm64 stays
// with `go tool objdump`, which decodes it, and has no assembly here.
package ctcheck

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Division is one division instruction in a compiled function.
type Division struct {
	Function    string // the symbol, as objdump names it, without "(SB)"
	Position    string // file:line of the instruction
	Instruction string // as the disassembler prints it, e.g. "div rcx"
}

func (d Division) String() string {
	return fmt.Sprintf("%s: %s at %s", d.Function, d.Instruction, d.Position)
}

// Function is one function of an object file and its instructions.
type Function struct {
	Name         string // the symbol, without "(SB)"
	File         string // the source file, as on objdump's TEXT line
	Code         []byte // machine code (amd64 only: zeros where relocated)
	Instructions []Instruction

	// offsets and positions of the instructions that go tool objdump
	// found: the source line of any byte of the function
	goOffsets   []int
	goPositions []string
}

// Instruction is one decoded instruction.
type Instruction struct {
	Offset   int    // from the start of the function
	Position string // file:line
	Text     string // e.g. "vpbroadcastw ymm15,WORD PTR [rip+0x0]"
	Mnemonic string // e.g. "vpbroadcastw", lower case, prefixes left out
}

// Divisions returns the division instructions of the functions.
func Divisions(fns []Function) []Division {
	var divs []Division
	for _, f := range fns {
		for _, in := range f.Instructions {
			if isDivision(in.Text) {
				divs = append(divs, Division{Function: f.Name, Position: in.Position, Instruction: in.Text})
			}
		}
	}
	return divs
}

// divisionRE matches the mnemonics that use a divider, in Go's syntax
// (go tool objdump) and in GNU's Intel syntax (objdump -M intel), which
// names an instruction without its operand size: integer division (DIVQ,
// IDIVL ...; div, idiv) on amd64, UDIV and SDIV (and their W forms) on
// arm64, and floating-point division, which is also variable time on some
// CPUs: SSE and AVX (DIVSS ... VDIVPD; divss ... vdivpd), AVX-512 FP16
// (vdivph, vdivsh), AVX10 bfloat16 (vdivbf16, vdivnepbf16), x87 (fdiv,
// fdivp, fdivr, fdivrp, fidiv, fidivr) and arm64 (FDIVS, FDIVD).
var divisionRE = regexp.MustCompile(`^(I?DIV[BWLQ]?|V?DIV[SP][SD]|[US]DIVW?|FDIV[SD]|i?div|v?div[sp][sdh]|vdiv(nep)?bf16|fi?divr?p?)$`)

// isDivision reports whether an instruction as a disassembler prints it
// is a division: whether its mnemonic matches divisionRE, whatever
// prefixes come before it (GNU prints "lock", "rep", "{evex}" and others
// as words of their own). Operands never match: registers and numbers are
// not mnemonics, and a comment ("# 0x9") is left out.
func isDivision(inst string) bool {
	inst, _, _ = strings.Cut(inst, "#")
	for _, w := range strings.FieldsFunc(inst, func(r rune) bool { return r == ' ' || r == '\t' || r == ',' || r == ';' }) {
		if divisionRE.MatchString(w) {
			return true
		}
	}
	return false
}

// Disassembler disassembles Go package archives and object files.
type Disassembler struct {
	GOARCH string // amd64 or arm64
	// GoObjdump is the go command, run as "go tool objdump", or the
	// objdump tool itself (an executable named objdump in GOTOOLDIR).
	GoObjdump string
	// GNUObjdump is GNU objdump with x86-64 support, needed for amd64.
	GNUObjdump string
}

// Functions returns every function of the archive or object at path
// with its instructions: for amd64 as GNU objdump decodes them, for
// arm64 as go tool objdump does. It fails if an instruction of amd64 code
// does not decode.
func (d *Disassembler) Functions(path string) ([]Function, error) {
	if d.GOARCH == "amd64" && d.GNUObjdump == "" {
		return nil, errors.New("no GNU objdump to decode amd64")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	objs, err := archiveObjects(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	dir, err := os.MkdirTemp("", "ctcheck")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var fns []Function
	for i, obj := range objs {
		file := filepath.Join(dir, fmt.Sprintf("%d.o", i))
		if err := os.WriteFile(file, obj.data, 0o600); err != nil {
			return nil, err
		}
		listing, err := d.goObjdump(file)
		if err != nil {
			return nil, fmt.Errorf("%s(%s): %w", path, obj.name, err)
		}
		f, err := ParseObjdump(listing, d.GOARCH == "amd64")
		if err != nil {
			return nil, fmt.Errorf("%s(%s): %w", path, obj.name, err)
		}
		if d.GOARCH == "amd64" && len(f) > 0 {
			if err := d.decodeGNU(f, filepath.Join(dir, fmt.Sprintf("%d.bin", i))); err != nil {
				return nil, fmt.Errorf("%s(%s): %w", path, obj.name, err)
			}
		}
		fns = append(fns, f...)
	}
	return fns, nil
}

func (d *Disassembler) goObjdump(file string) ([]byte, error) {
	var cmd *exec.Cmd
	if strings.TrimSuffix(filepath.Base(d.GoObjdump), ".exe") == "objdump" {
		cmd = exec.Command(d.GoObjdump, file)
	} else {
		cmd = exec.Command(d.GoObjdump, "tool", "objdump", file)
	}
	return output(cmd)
}

func output(cmd *exec.Cmd) ([]byte, error) {
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s: %w\n%s", strings.Join(cmd.Args, " "), err, stderr.Bytes())
	}
	return out, nil
}

type object struct {
	name string
	data []byte
}

// archiveObjects returns the object files of a Go package archive, which
// has the Unix ar format: the export data (__.PKGDEF), the compiled Go
// code (_go_.o) and an object for each assembly file. The objects are
// known by their contents, not by their names, which the go command cuts
// to 16 bytes; any other member is an error. Data that is no archive is
// returned as one object.
func archiveObjects(data []byte) ([]object, error) {
	const magic = "!<arch>\n"
	rest, ok := bytes.CutPrefix(data, []byte(magic))
	if !ok {
		return []object{{"", data}}, nil
	}
	var objs []object
	for len(rest) > 0 {
		if len(rest) < 60 || string(rest[58:60]) != "`\n" {
			return nil, errors.New("bad archive header")
		}
		name := strings.TrimRight(strings.TrimSpace(string(rest[:16])), "/")
		size, err := strconv.Atoi(strings.TrimSpace(string(rest[48:58])))
		if err != nil || size < 0 || size > len(rest)-60 {
			return nil, errors.New("bad archive member size")
		}
		body := rest[60 : 60+size]
		rest = rest[60+size:]
		if size%2 == 1 && len(rest) > 0 {
			rest = rest[1:]
		}
		switch {
		case name == "__.PKGDEF":
		case bytes.HasPrefix(body, []byte("go object ")):
			objs = append(objs, object{name, body})
		default:
			return nil, fmt.Errorf("archive member %q is no Go object", name)
		}
	}
	if len(objs) == 0 {
		return nil, errors.New("no object in archive")
	}
	return objs, nil
}

// ParseObjdump returns the functions of a `go tool objdump` listing:
// lines "TEXT symbol(SB) file" open a function, and each instruction line
// is "  file:line  address  encoding  MNEMONIC operands", separated by
// tabs. With code, each function's machine code is gathered from the
// encodings, which must follow each other without a gap.
func ParseObjdump(listing []byte, code bool) ([]Function, error) {
	var fns []Function
	var f *Function
	next := 0
	sc := bufio.NewScanner(bytes.NewReader(listing))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "TEXT "); ok {
			// A symbol can have spaces: type:.eq.T[go.shape.struct { ... }].
			name, file, _ := strings.Cut(rest, "(SB) ")
			fns = append(fns, Function{Name: strings.TrimSuffix(name, "(SB)"), File: file})
			f = &fns[len(fns)-1]
			continue
		}
		var cols []string
		for c := range strings.SplitSeq(strings.TrimSpace(line), "\t") {
			if c = strings.TrimSpace(c); c != "" {
				cols = append(cols, c)
			}
		}
		// position, address, encoding, instruction[, relocation]
		if len(cols) < 4 || f == nil {
			continue
		}
		inst := cols[3]
		mnemonic, _, _ := strings.Cut(inst, " ")
		off := len(f.goOffsets)
		if code {
			addr, err := strconv.ParseUint(strings.TrimPrefix(cols[1], "0x"), 16, 64)
			if err != nil {
				return nil, fmt.Errorf("bad address in %q", line)
			}
			enc, err := hex.DecodeString(cols[2])
			if err != nil || len(enc) == 0 {
				return nil, fmt.Errorf("bad encoding in %q", line)
			}
			if len(f.Code) > 0 && int(addr) != next {
				return nil, fmt.Errorf("%s: gap in the code at %#x", f.Name, addr)
			}
			next = int(addr) + len(enc)
			off = len(f.Code)
			f.Code = append(f.Code, enc...)
		}
		f.goOffsets = append(f.goOffsets, off)
		f.goPositions = append(f.goPositions, cols[0])
		f.Instructions = append(f.Instructions, Instruction{Offset: off, Position: cols[0], Text: inst, Mnemonic: strings.ToLower(mnemonic)})
	}
	return fns, sc.Err()
}

// position returns the source line of the byte at offset off of f: that
// of the instruction go tool objdump decoded there or before it. Where the
// Go decoder lost its way in VEX or EVEX code, that may be the line before.
func (f *Function) position(off int) string {
	i := sort.SearchInts(f.goOffsets, off+1) - 1
	if i < 0 {
		return ""
	}
	return f.goPositions[i]
}

// gap is the filler between two functions in the code given to GNU
// objdump: INT3, one byte, so that however far an instruction that runs
// past the end of a function reaches (x86 instructions have at most 15
// bytes), the decoder is back in step at the start of the next one.
const gap = 16

// decodeGNU replaces the instructions of the amd64 functions fns with
// those GNU objdump decodes from their code, written one after the other
// to the file at path.
func (d *Disassembler) decodeGNU(fns []Function, path string) error {
	var blob []byte
	starts := make([]int, len(fns))
	for i := range fns {
		starts[i] = len(blob)
		blob = append(blob, fns[i].Code...)
		blob = append(blob, bytes.Repeat([]byte{0xcc}, gap)...)
	}
	if err := os.WriteFile(path, blob, 0o600); err != nil {
		return err
	}
	listing, err := output(exec.Command(d.GNUObjdump, "-D", "-b", "binary", "-m", "i386:x86-64",
		"-M", "intel", "-z", "-w", "--no-show-raw-insn", path))
	if err != nil {
		return err
	}
	insts, err := ParseGNUObjdump(listing)
	if err != nil {
		return err
	}
	for i := range fns {
		fns[i].Instructions = nil
	}
	fn := 0
	for k, in := range insts {
		for fn+1 < len(fns) && in.Offset >= starts[fn+1] {
			fn++
		}
		f := &fns[fn]
		start, end := starts[fn], starts[fn]+len(f.Code)
		if in.Offset >= end {
			continue // the filler
		}
		if len(f.Instructions) == 0 && in.Offset != start {
			return fmt.Errorf("%s: decoding starts at %d, not 0", f.Name, in.Offset-start)
		}
		limit := len(blob)
		if k+1 < len(insts) {
			limit = insts[k+1].Offset
		}
		off := in.Offset - start
		if limit > end {
			return fmt.Errorf("%s: instruction at %#x (%s, %s) runs past the end of the function", f.Name, off, in.Text, f.position(off))
		}
		if strings.Contains(in.Text, "(bad)") || strings.HasPrefix(in.Text, ".byte") {
			return fmt.Errorf("%s: GNU objdump cannot decode the instruction at %#x (%s); a newer binutils may", f.Name, off, f.position(off))
		}
		in.Offset = off
		in.Position = f.position(off)
		f.Instructions = append(f.Instructions, in)
	}
	for i := range fns {
		if len(fns[i].Code) > 0 && len(fns[i].Instructions) == 0 {
			return fmt.Errorf("%s: no instruction decoded", fns[i].Name)
		}
	}
	return nil
}

// prefixes are the words GNU objdump prints before a mnemonic.
var prefixes = map[string]bool{
	"lock": true, "rep": true, "repz": true, "repnz": true, "repe": true, "repne": true,
	"data16": true, "data32": true, "addr32": true, "addr16": true, "bnd": true, "notrack": true,
	"xacquire": true, "xrelease": true, "cs": true, "ds": true, "es": true, "ss": true, "fs": true, "gs": true,
	"{vex}": true, "{vex3}": true, "{evex}": true, "{rex}": true, "{rex2}": true,
}

// ParseGNUObjdump returns the instructions of a listing of GNU objdump
// with --no-show-raw-insn: lines "  address:\tinstruction", the address in
// hex. Offset is the address; Text has one space between words.
func ParseGNUObjdump(listing []byte) ([]Instruction, error) {
	var insts []Instruction
	sc := bufio.NewScanner(bytes.NewReader(listing))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		addr, text, ok := strings.Cut(strings.TrimSpace(sc.Text()), ":\t")
		if !ok {
			continue
		}
		off, err := strconv.ParseUint(addr, 16, 64)
		if err != nil {
			continue
		}
		// One space between the words, and no comment ("# 0x9", the
		// target of a RIP-relative operand).
		text, _, _ = strings.Cut(text, "#")
		text = strings.Join(strings.Fields(text), " ")
		if text == "" {
			return nil, fmt.Errorf("no instruction at %#x", off)
		}
		mnemonic := ""
		for w := range strings.FieldsSeq(text) {
			if !prefixes[w] && !strings.HasPrefix(w, "rex") {
				mnemonic = w
				break
			}
		}
		insts = append(insts, Instruction{Offset: int(off), Text: text, Mnemonic: mnemonic})
	}
	return insts, sc.Err()
}

// AsmFunction is an assembly function as the Go assembler lists it with
// -S: the truth that a disassembly of its code can be held against.
type AsmFunction struct {
	Name      string
	Size      int
	Offsets   []int    // where each instruction starts, increasing
	Mnemonics []string // Go's mnemonic of each, e.g. "VPBROADCASTW"
	Positions []string // file:line of each
}

var (
	asmHeaderRE = regexp.MustCompile(`^(\S+) STEXT .*\basm size=(\d+) `)
	asmInstRE   = regexp.MustCompile(`^\t0x[0-9a-f]+ (\d+) \((.*)\)\t([A-Z0-9.]+)`)
)

// ParseAsmListing returns the assembly functions of the output of the Go
// assembler's -S flag (go build -asmflags=-S), by symbol name. A function
// opens with a line "symbol STEXT ... asm size=N ..."; each of its
// instructions is a line "\t0xPC PC (file:line)\tMNEMONIC operands". The
// pseudo-instructions (TEXT, FUNCDATA, PCDATA, NOP) take no bytes and come
// before the instruction at their PC, so the last line at a PC is the
// instruction that starts there.
func ParseAsmListing(listing []byte) (map[string]*AsmFunction, error) {
	fns := make(map[string]*AsmFunction)
	var f *AsmFunction
	sc := bufio.NewScanner(bytes.NewReader(listing))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := asmHeaderRE.FindStringSubmatch(line); m != nil {
			size, _ := strconv.Atoi(m[2])
			f = &AsmFunction{Name: m[1], Size: size}
			fns[f.Name] = f
			continue
		}
		if !strings.HasPrefix(line, "\t") {
			f = nil // the end of the function's instructions
			continue
		}
		m := asmInstRE.FindStringSubmatch(line)
		if m == nil || f == nil {
			continue
		}
		pc, _ := strconv.Atoi(m[1])
		if pc >= f.Size {
			continue // a pseudo-instruction after the last one
		}
		mnemonic, _, _ := strings.Cut(m[3], ".") // VADDPD.Z: the suffix is an operand
		pos := filepath.Base(m[2])
		if n := len(f.Offsets); n > 0 && f.Offsets[n-1] == pc {
			f.Mnemonics[n-1], f.Positions[n-1] = mnemonic, pos
			continue
		}
		if n := len(f.Offsets); n > 0 && f.Offsets[n-1] > pc {
			return nil, fmt.Errorf("%s: PC %d after %d", f.Name, pc, f.Offsets[n-1])
		}
		f.Offsets = append(f.Offsets, pc)
		f.Mnemonics = append(f.Mnemonics, mnemonic)
		f.Positions = append(f.Positions, pos)
	}
	return fns, sc.Err()
}

// InStep checks a decoding of an assembly function against the
// assembler's listing of it: the same size, an instruction decoded at
// every offset where the assembler put one and at no other, and for
// every VEX and EVEX instruction (Go mnemonics that start with V, and the
// mask instructions, K...: Go names them as Intel does) the same
// mnemonic. A decoder that lost its way in the code, or read one
// instruction as two, fails it. When they agree, each instruction of f
// gets the assembler's source line, which go tool objdump can miss by a
// line in VEX and EVEX code.
func InStep(f *Function, a *AsmFunction) error {
	if len(f.Code) != a.Size {
		return fmt.Errorf("%s: %d bytes of code, the assembler made %d", f.Name, len(f.Code), a.Size)
	}
	i := 0
	for _, in := range f.Instructions {
		if i == len(a.Offsets) || in.Offset != a.Offsets[i] {
			return fmt.Errorf("%s: %q decoded at %#x (%s), where the assembler put no instruction", f.Name, in.Text, in.Offset, in.Position)
		}
		if m := a.Mnemonics[i]; (m[0] == 'V' || m[0] == 'K') && strings.ToLower(m) != in.Mnemonic {
			return fmt.Errorf("%s: %q decoded at %#x, where the assembler put %s (%s)", f.Name, in.Text, in.Offset, m, a.Positions[i])
		}
		i++
	}
	if i != len(a.Offsets) {
		return fmt.Errorf("%s: %d instructions decoded, the assembler made %d", f.Name, i, len(a.Offsets))
	}
	for i := range f.Instructions {
		f.Instructions[i].Position = a.Positions[i]
	}
	return nil
}

// probe is a VEX VPBROADCASTW, a DIVQ and an EVEX VPTERNLOGD.
var probe = []byte{0xc4, 0x62, 0x7d, 0x79, 0x3d, 0, 0, 0, 0, 0x48, 0xf7, 0xf1, 0x62, 0xf3, 0x75, 0x28, 0x25, 0xc2, 0x96}

// FindGNUObjdump returns the path of a GNU objdump that decodes x86-64
// with AVX2 and AVX-512 (it decodes a probe): x86_64-linux-gnu-objdump
// (Debian's name, also that of the cross binutils on other hosts),
// objdump, or gobjdump and x86_64-elf-objdump (Homebrew's), on the PATH.
func FindGNUObjdump() (string, error) {
	dir, err := os.MkdirTemp("", "ctcheck")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "probe.bin")
	if err := os.WriteFile(file, probe, 0o600); err != nil {
		return "", err
	}
	for _, name := range []string{"x86_64-linux-gnu-objdump", "objdump", "gobjdump", "x86_64-elf-objdump"} {
		p, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		out, err := exec.Command(p, "-D", "-b", "binary", "-m", "i386:x86-64",
			"-M", "intel", "-z", "-w", "--no-show-raw-insn", file).Output()
		if err != nil {
			continue
		}
		insts, err := ParseGNUObjdump(out)
		if err != nil || len(insts) != 3 {
			continue
		}
		if insts[0].Mnemonic == "vpbroadcastw" && insts[1].Text == "div rcx" && insts[2].Mnemonic == "vpternlogd" {
			return p, nil
		}
	}
	return "", errors.New("no GNU objdump that decodes x86-64 with AVX-512")
}
