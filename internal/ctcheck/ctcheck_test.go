package ctcheck

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// secretPackages are the packages that handle secrets: keys, shared keys,
// messages, PRF outputs, passwords. Every package under them is checked
// too (mlkemtest and frodotest derandomize encapsulation for tests; they
// are checked anyway: stricter costs nothing).
var secretPackages = []string{
	"github.com/pqkem/pqkem/internal/ctcompare/...",
	"github.com/pqkem/pqkem/internal/fips203/...",
	"github.com/pqkem/pqkem/internal/keccak/...",
	"github.com/pqkem/pqkem/internal/mlkemlevel/...",
	"github.com/pqkem/pqkem/mlkem/...",
	"github.com/pqkem/pqkem/hybrid/...",
	"github.com/pqkem/pqkem/frodo/...",
	"github.com/pqkem/pqkem/pake/...",
}

// allowlist holds the functions of secretPackages that may divide, with
// the reason: each divides public values only. Names are objdump's,
// without the module path "github.com/pqkem/pqkem/".
var allowlist = map[string]string{
	"internal/keccak.(*X4).SqueezeBlocks": "lengths: len(out) % rate and the offset % rate; the lengths of the outputs are public, their contents never divided",
	"internal/keccak.(*X4).checkSqueeze":  "lengths: len(out) % rate and the offset % rate, as in SqueezeBlocks",
	"internal/keccak.(*X8).SqueezeBlocks": "lengths: X4.checkSqueeze inlined for each half, public lengths",
	"internal/keccak.(*X4).Read":          "the offset: (off + len) % rate, public lengths",
	"pake.reciprocal":                     "runs at package initialization on the public constant q^5 (bits.Div64)",
	"pake.init":                           "pake.reciprocal inlined into package initialization: the public constant q^5",
	"pake.(*Scheme).presample.func1":      "the matrix index e / k and e % k of entry e at rank k, both public",
}

// goTool returns the go command on the PATH, the one that runs the tests.
func goTool(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the packages with")
	}
	return p
}

// goList runs go list with args for the given GOARCH and build tags and
// returns its output.
func goList(t *testing.T, goarch, tags string, args ...string) string {
	t.Helper()
	if tags != "" {
		args = append([]string{"-tags", tags}, args...)
	}
	cmd := exec.Command(goTool(t), append([]string{"list"}, args...)...)
	cmd.Env = append(os.Environ(), "GOARCH="+goarch, "GOOS=linux", "CGO_ENABLED=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s (GOARCH=%s): %v\n%s", strings.Join(cmd.Args[1:], " "), goarch, err, stderr.Bytes())
	}
	return strings.TrimSpace(string(out))
}

// exports compiles the packages matched by patterns for the given GOARCH
// and build tags, and returns import path -> object file (the compiler's
// output in the build cache, with the code of every function).
//
// go test caches a test's result until a file the test consulted changes,
// and the compilation runs in a subprocess, out of its sight. So exports
// also consults (stats) every source file of the module that goes into the
// objects: a change to one of them reruns the check.
func exports(t *testing.T, goarch, tags string, patterns ...string) map[string]string {
	t.Helper()
	sources := goList(t, goarch, tags, append([]string{"-deps", "-f",
		`{{if .Module}}{{if .Module.Main}}{{$d := .Dir}}{{range .GoFiles}}{{$d}}/{{.}}{{"\n"}}{{end}}{{range .SFiles}}{{$d}}/{{.}}{{"\n"}}{{end}}{{end}}{{end}}`},
		patterns...)...)
	for file := range strings.SplitSeq(sources, "\n") {
		if _, err := os.Stat(filepath.Clean(file)); err != nil {
			t.Fatal(err)
		}
	}
	out := goList(t, goarch, tags, append([]string{"-export", "-f", "{{.ImportPath}}\t{{.Export}}"}, patterns...)...)
	m := make(map[string]string)
	for line := range strings.SplitSeq(out, "\n") {
		pkg, file, ok := strings.Cut(line, "\t")
		if !ok || file == "" {
			t.Fatalf("go list gave no object for %q", line)
		}
		m[pkg] = file
	}
	return m
}

func shortName(fn string) string {
	return strings.TrimPrefix(fn, "github.com/pqkem/pqkem/")
}

// builds are the configurations checked: the amd64 build with its
// assembly, the purego build (the generic Go code that other platforms
// run), and arm64, whose divider is also variable time.
var builds = []struct{ goarch, tags string }{
	{"amd64", ""},
	{"amd64", "purego"},
	{"arm64", ""},
}

var (
	toolsOnce  sync.Once
	goObjdump  string // the objdump of GOTOOLDIR, or the go command
	gnuObjdump string
	gnuErr     error
)

// disassembler returns a Disassembler for goarch. For amd64 it needs GNU
// objdump, and fails the test without it: the check must not pass
// unread.
func disassembler(t *testing.T, goarch string) *Disassembler {
	t.Helper()
	tool := goTool(t)
	toolsOnce.Do(func() {
		goObjdump = tool
		// The tool itself, not "go tool objdump": one process, not two,
		// for each of the dozens of objects. go tool -n builds it if
		// needed and prints its path.
		if out, err := exec.Command(tool, "tool", "-n", "objdump").Output(); err == nil {
			p := strings.TrimSpace(string(out))
			if filepath.IsAbs(p) && strings.TrimSuffix(filepath.Base(p), ".exe") == "objdump" {
				if _, err := os.Stat(p); err == nil {
					goObjdump = p
				}
			}
		}
		gnuObjdump, gnuErr = FindGNUObjdump()
	})
	d := &Disassembler{GOARCH: goarch, GoObjdump: goObjdump}
	if goarch == "amd64" {
		if gnuErr != nil {
			t.Fatalf("%v. The check of amd64 code needs GNU objdump, which decodes the AVX2 (VEX) and AVX-512 (EVEX) "+
				"instructions that go tool objdump does not: install binutils (Debian and Ubuntu: apt-get install binutils; "+
				"on a host that is not x86, binutils-x86-64-linux-gnu)", gnuErr)
		}
		d.GNUObjdump = gnuObjdump
	}
	return d
}

// sample is an AVX2 routine whose decoding TestNoDivisionOnSecrets logs.
const sample = "internal/fips203.compressEncode1AVX2"

// TestNoDivisionOnSecrets is the static check: no function of a
// secret-handling package uses the divider, except the allowlisted ones.
func TestNoDivisionOnSecrets(t *testing.T) {
	used := make(map[string]bool)
	for _, b := range builds {
		start := time.Now()
		d := disassembler(t, b.goarch)
		objs := exports(t, b.goarch, b.tags, secretPackages...)
		if len(objs) < len(secretPackages) {
			t.Fatalf("%s %s: only %d packages", b.goarch, b.tags, len(objs))
		}
		var listing map[string]*AsmFunction
		if b.goarch == "amd64" && b.tags == "" {
			listing = asmListing(t, secretPackages...)
		}
		nfn, ninst, nasm := 0, 0, 0
		var sampled Function
		pkgs := slices.Sorted(maps.Keys(objs))
		results := disassembleAll(d, objs, pkgs)
		for i := range pkgs {
			fns, err := results[i].fns, results[i].err
			if err != nil {
				t.Fatal(err)
			}
			for j := range fns {
				nfn++
				ninst += len(fns[j].Instructions)
				if strings.HasSuffix(fns[j].File, ".s") {
					nasm++
					if listing != nil {
						checkInStep(t, &fns[j], listing)
					}
					if shortName(fns[j].Name) == sample {
						sampled = fns[j]
					}
				}
			}
			for _, dv := range Divisions(fns) {
				name := shortName(dv.Function)
				if _, ok := allowlist[name]; ok {
					used[name] = true
					continue
				}
				t.Errorf("GOARCH=%s tags=%q: division in a secret-handling package: %v\n"+
					"\tIf it divides only public values, add %q to the allowlist with the reason; otherwise remove the division (KyberSlash).",
					b.goarch, b.tags, dv, name)
			}
		}
		if listing != nil {
			if nasm == 0 {
				t.Errorf("GOARCH=amd64: no assembly function found")
			}
			for name := range listing {
				t.Errorf("%s: in the assembler's listing, not in the objects", name)
			}
			t.Logf("GOARCH=amd64: all %d assembly functions decoded in step with the assembler's listing", nasm)
			// One of them by name, the AVX2 routine in which go tool
			// objdump once read a DIVL.
			n := 0
			for _, in := range sampled.Instructions {
				if in.Mnemonic == "vpbroadcastw" {
					n++
				}
			}
			if n == 0 {
				t.Errorf("%s: no VPBROADCASTW decoded in %d instructions", sample, len(sampled.Instructions))
			}
			t.Logf("%s: %d instructions, %d of them VPBROADCASTW, none a division", sample, len(sampled.Instructions), n)
		}
		t.Logf("GOARCH=%s tags=%q: %d packages, %d functions (%d in assembly), %d instructions checked in %v",
			b.goarch, b.tags, len(objs), nfn, nasm, ninst, time.Since(start).Round(time.Millisecond))
	}
	for name := range allowlist {
		if !used[name] {
			t.Logf("allowlist entry %q matched no division in any build; remove it if the code changed", name)
		}
	}
}

type result struct {
	fns []Function
	err error
}

// disassembleAll disassembles the objects of pkgs, as many at a time as
// there are CPUs: each takes two processes, go tool objdump and GNU
// objdump, for each object in it.
func disassembleAll(d *Disassembler, objs map[string]string, pkgs []string) []result {
	results := make([]result, len(pkgs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(pkgs)) {
		wg.Go(func() {
			for i := range next {
				fns, err := d.Functions(objs[pkgs[i]])
				results[i] = result{fns, err}
			}
		})
	}
	for i := range pkgs {
		next <- i
	}
	close(next)
	wg.Wait()
	return results
}

// TestCheckFindsDivision proves that the check can fail: the testdata
// package divleak divides a variable by a variable, and the check must
// find exactly its two dividing functions, in every build, and not the
// division by a constant.
func TestCheckFindsDivision(t *testing.T) {
	for _, b := range builds {
		d := disassembler(t, b.goarch)
		objs := exports(t, b.goarch, b.tags, "./testdata/divleak")
		if len(objs) != 1 {
			t.Fatalf("built %d packages, want 1", len(objs))
		}
		for _, obj := range objs {
			fns, err := d.Functions(obj)
			if err != nil {
				t.Fatal(err)
			}
			found := make(map[string]bool)
			for _, dv := range Divisions(fns) {
				found[dv.Function[strings.LastIndex(dv.Function, ".")+1:]] = true
				t.Logf("GOARCH=%s tags=%q: found %v", b.goarch, b.tags, dv)
			}
			if !found["Reduce"] || !found["Remainder"] || found["ByConstant"] || len(found) != 2 {
				t.Errorf("GOARCH=%s tags=%q: found divisions in %v, want exactly Reduce and Remainder", b.goarch, b.tags, found)
			}
		}
	}
}

// TestAssemblyDivision builds the testdata package asmdiv, whose amd64
// assembly mixes AVX2 (VEX) and AVX-512 (EVEX) instructions, and checks
// that every instruction decodes in step with the assembler's listing,
// that the planted divisions are found in their functions and at their
// lines, and that nothing is found in the clean functions, one of which
// holds the bytes of a DIVL in a displacement. go tool objdump alone, as
// the log shows, finds that DIVL and misses the VDIVPS and the DIVQ of
// the EVEX code.
func TestAssemblyDivision(t *testing.T) {
	d := disassembler(t, "amd64")
	objs := exports(t, "amd64", "", "./testdata/asmdiv")
	obj, ok := objs["github.com/pqkem/pqkem/internal/ctcheck/testdata/asmdiv"]
	if !ok || len(objs) != 1 {
		t.Fatalf("built %v, want asmdiv", objs)
	}
	fns, err := d.Functions(obj)
	if err != nil {
		t.Fatal(err)
	}
	listing := asmListing(t, "./testdata/asmdiv")
	byName := make(map[string]Function)
	for i, f := range fns {
		if strings.HasSuffix(f.File, ".s") {
			checkInStep(t, &fns[i], listing)
			byName[f.Name[strings.LastIndex(f.Name, ".")+1:]] = fns[i]
		}
	}
	for name := range listing {
		t.Errorf("%s: in the assembler's listing, not in the objects", name)
	}
	want := []string{"vexClean", "vexDivide", "evexClean", "evexDivide"}
	if len(byName) != len(want) {
		t.Fatalf("assembly functions %v, want %v", slices.Sorted(maps.Keys(byName)), want)
	}
	for name, mnemonics := range map[string][]string{
		"vexClean":   {"vpbroadcastw", "vpermq", "vpshufb", "vpmaddubsw", "vextracti128", "andn", "shlx"},
		"evexClean":  {"vmovdqu64", "vpternlogq", "vprolq", "vprolvq", "vpcompressw", "vpermb", "vpmadd52luq", "vaesenc", "kmovq"},
		"evexDivide": {"vpternlogq", "vdivps", "div"},
	} {
		var got []string
		for _, in := range byName[name].Instructions {
			got = append(got, in.Mnemonic)
		}
		for _, m := range mnemonics {
			if !slices.Contains(got, m) {
				t.Errorf("%s: no %s among the decoded instructions %v", name, m, got)
			}
		}
	}

	// The planted divisions, each at the source line of its instruction.
	src, err := os.ReadFile(byName["vexDivide"].File)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	var got []string
	for _, dv := range Divisions(fns) {
		t.Logf("found %v", dv)
		name := dv.Function[strings.LastIndex(dv.Function, ".")+1:]
		got = append(got, name+": "+dv.Instruction)
		n, err := strconv.Atoi(strings.TrimPrefix(dv.Position, "asmdiv_amd64.s:"))
		mnemonic, _, _ := strings.Cut(dv.Instruction, " ")
		if err != nil || n < 1 || n > len(lines) ||
			!strings.HasPrefix(strings.TrimSpace(lines[n-1]), strings.ToUpper(mnemonic)) {
			t.Errorf("%v: not at the line of its instruction", dv)
		}
	}
	wantDivs := []string{
		"vexDivide: div rcx",
		"evexDivide: vdivps zmm3{k1},zmm2,zmm1",
		"evexDivide: div rcx",
	}
	if !slices.Equal(got, wantDivs) {
		t.Errorf("divisions %q, want %q", got, wantDivs)
	}

	// For the record: what go tool objdump's own decoder makes of it.
	data, err := os.ReadFile(obj)
	if err != nil {
		t.Fatal(err)
	}
	objects, err := archiveObjects(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objects {
		file := filepath.Join(t.TempDir(), "x.o")
		if err := os.WriteFile(file, o.data, 0o600); err != nil {
			t.Fatal(err)
		}
		listing, err := d.goObjdump(file)
		if err != nil {
			t.Fatal(err)
		}
		goFns, err := ParseObjdump(listing, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, dv := range Divisions(goFns) {
			t.Logf("go tool objdump alone: %v", dv)
		}
	}
}

// asmListing assembles the packages matched by patterns for amd64 with
// the assembler's -S flag and returns its listing of their assembly
// functions. The go command caches the listing with the object and
// prints it again, so this takes no time when the object is cached.
func asmListing(t *testing.T, patterns ...string) map[string]*AsmFunction {
	t.Helper()
	cmd := exec.Command(goTool(t), append([]string{"build", "-asmflags=-S"}, patterns...)...)
	cmd.Env = append(os.Environ(), "GOARCH=amd64", "GOOS=linux", "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go build -asmflags=-S: %v\n%s", err, out)
	}
	fns, err := ParseAsmListing(out)
	if err != nil {
		t.Fatal(err)
	}
	return fns
}

// checkInStep checks the decoding of an assembly function against the
// assembler's listing, and takes it out of the listing: what is left at
// the end was not in the objects.
func checkInStep(t *testing.T, f *Function, listing map[string]*AsmFunction) {
	t.Helper()
	a, ok := listing[f.Name]
	if !ok {
		t.Errorf("%s: not in the assembler's listing", f.Name)
		return
	}
	delete(listing, f.Name)
	if err := InStep(f, a); err != nil {
		t.Error(err)
	}
}

func TestParseObjdump(t *testing.T) {
	listing := "TEXT example.com/p.f(SB) /src/p/p.go\n" +
		"  p.go:3\t\t0x10\t\t48f7f1\t\tDIVQ CX\t\t\n" +
		"  p.go:4\t\t0x13\t\t4801c8\t\tADDQ CX, AX\n" +
		"TEXT example.com/p.(*T).g(SB) /src/p/p.go\n" +
		"  p.go:9\t\t0x20\t\t9ac20c65\tSDIV R2, R3, R5\n" +
		"  p.go:10\t\t0x24\t\tf20f5ec1\tDIVSD X1, X0\n" +
		"  p.go:11\t\t0x28\t\t00\t\tMOVQ $0, DIVQ(SP)\n"
	fns, err := ParseObjdump([]byte(listing), false)
	if err != nil {
		t.Fatal(err)
	}
	got := Divisions(fns)
	want := []Division{
		{"example.com/p.f", "p.go:3", "DIVQ CX"},
		{"example.com/p.(*T).g", "p.go:9", "SDIV R2, R3, R5"},
		{"example.com/p.(*T).g", "p.go:10", "DIVSD X1, X0"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Divisions = %v, want %v", got, want)
	}

	// The machine code of the amd64 functions, from the encodings.
	fns, err = ParseObjdump([]byte(listing[:strings.Index(listing, "TEXT example.com/p.(*T)")]+
		"TEXT type:.eq.p.T[go.shape.struct { p.a int }](SB) <autogenerated>\n"+
		"  <autogenerated>:1\t\t0x40\t\tc3\t\tRET\n"), true)
	if err != nil {
		t.Fatal(err)
	}
	if len(fns) != 2 || fmt.Sprintf("%x", fns[0].Code) != "48f7f14801c8" || fns[0].File != "/src/p/p.go" ||
		fns[1].Name != "type:.eq.p.T[go.shape.struct { p.a int }]" || fns[1].File != "<autogenerated>" {
		t.Errorf("ParseObjdump = %+v, want f with code 48f7f14801c8", fns)
	}
	if _, err := ParseObjdump([]byte(strings.Replace(listing, "0x13", "0x14", 1)), true); err == nil {
		t.Errorf("ParseObjdump: no error for a gap in the code")
	}
}

// TestArchiveObjects reads a Go archive with a member whose name the go
// command cut short (no ".o"), and one of an odd size, which ar pads.
func TestArchiveObjects(t *testing.T) {
	member := func(name, body string) string {
		s := fmt.Sprintf("%-16s%-12s%-6s%-6s%-8s%-10d`\n%s", name, "0", "0", "0", "644", len(body), body)
		if len(body)%2 == 1 {
			s += "\n"
		}
		return s
	}
	ar := "!<arch>\n" + member("__.PKGDEF", "go object linux amd64 export\n") +
		member("_go_.o", "go object linux amd64 a\n") + member("keccakx4_avx512", "go object linux amd64 bc\n")
	objs, err := archiveObjects([]byte(ar))
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 2 || objs[0].name != "_go_.o" || objs[1].name != "keccakx4_avx512" ||
		string(objs[1].data) != "go object linux amd64 bc\n" {
		t.Errorf("archiveObjects = %q, want _go_.o and keccakx4_avx512", objs)
	}
	if _, err := archiveObjects([]byte(ar + member("x.syso", "\x7fELF"))); err == nil {
		t.Errorf("archiveObjects: no error for a member that is no Go object")
	}
	if _, err := archiveObjects([]byte(ar[:len(ar)-3])); err == nil {
		t.Errorf("archiveObjects: no error for a cut archive")
	}
}

func TestParseGNUObjdump(t *testing.T) {
	listing := "\nx.bin:     file format binary\n\n\nDisassembly of section .data:\n\n" +
		"0000000000000000 <.data>:\n" +
		"   0:\tvpbroadcastw ymm15,WORD PTR [rip+0x0]        # 0x9\n" +
		"   9:\tdiv    rcx\n" +
		"   c:\tvpternlogq zmm1,zmm2,zmm3,0x96\n" +
		"  13:\tvdivps zmm3{k1}{z},zmm2,zmm1\n" +
		"  19:\tlock xadd DWORD PTR [rax],ecx\n" +
		"  1d:\trep stos BYTE PTR es:[rdi],al\n" +
		"  1f:\tidiv   DWORD PTR [rsi+0x8]\n" +
		"  22:\tdata16 divsd xmm0,xmm1\n" +
		"  27:\tfdivrp st(1),st\n" +
		"  29:\t{evex} vpdpbusd ymm0,ymm1,ymm2\n" +
		"  2f:\tvpdivxx ymm0,ymm1,ymm2\n"
	insts, err := ParseGNUObjdump([]byte(listing))
	if err != nil {
		t.Fatal(err)
	}
	if insts[0].Text != "vpbroadcastw ymm15,WORD PTR [rip+0x0]" || insts[1].Text != "div rcx" {
		t.Errorf("texts %q, %q: want one space between words and no comment", insts[0].Text, insts[1].Text)
	}
	var mnemonics, divs []string
	for _, in := range insts {
		mnemonics = append(mnemonics, fmt.Sprintf("%x:%s", in.Offset, in.Mnemonic))
		if isDivision(in.Text) {
			divs = append(divs, in.Mnemonic)
		}
	}
	wantMnemonics := []string{"0:vpbroadcastw", "9:div", "c:vpternlogq", "13:vdivps", "19:xadd", "1d:stos",
		"1f:idiv", "22:divsd", "27:fdivrp", "29:vpdpbusd", "2f:vpdivxx"}
	if !slices.Equal(mnemonics, wantMnemonics) {
		t.Errorf("mnemonics %v, want %v", mnemonics, wantMnemonics)
	}
	wantDivs := []string{"div", "vdivps", "idiv", "divsd", "fdivrp"}
	if !slices.Equal(divs, wantDivs) {
		t.Errorf("divisions %v, want %v", divs, wantDivs)
	}
}

func TestDivisionRE(t *testing.T) {
	for _, m := range []string{
		"DIVQ", "DIVL", "DIVB", "IDIVQ", "DIVSS", "DIVPD", "VDIVPS", "VDIVSD", "UDIV", "SDIVW", "FDIVD",
		"div", "idiv", "divss", "divsd", "divps", "divpd", "vdivss", "vdivsd", "vdivps", "vdivpd",
		"vdivph", "vdivsh", "vdivnepbf16", "vdivbf16", "fdiv", "fdivp", "fdivr", "fdivrp", "fidiv", "fidivr",
	} {
		if !divisionRE.MatchString(m) {
			t.Errorf("%s does not match", m)
		}
	}
	for _, m := range []string{
		"MULQ", "ADDQ", "DIVQ(SP)", "vpdiv", "divx", "vdivpsx", "rcx", "zmm3{k1}{z}", "mul", "vrcpps", "vdivp",
	} {
		if divisionRE.MatchString(m) {
			t.Errorf("%s matches", m)
		}
	}
}

// TestDecodeFailures shows that code GNU objdump cannot read in step is
// an error, not a pass: a byte that is no instruction in 64-bit mode,
// and an instruction cut short by the end of its function, whose decoder
// would otherwise run into the filler. The function after each must not
// matter.
func TestDecodeFailures(t *testing.T) {
	d := disassembler(t, "amd64")
	ret := Function{Name: "ret", Code: []byte{0xc3}}
	for _, c := range []struct {
		code []byte
		err  string
	}{
		{[]byte{0x90, 0x06, 0xc3}, "cannot decode"},                        // PUSH ES: none in 64-bit mode
		{[]byte{0x90, 0xc4, 0x62, 0x7d, 0x79, 0x3d, 0, 0}, "past the end"}, // VPBROADCASTW without its last byte
	} {
		fns := []Function{{Name: "f", Code: c.code}, ret}
		err := d.decodeGNU(fns, filepath.Join(t.TempDir(), "code.bin"))
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("% x: error %v, want %q", c.code, err, c.err)
		}
	}
	fns := []Function{{Name: "f", Code: []byte{0x90, 0x48, 0xf7, 0xf1}}, ret}
	if err := d.decodeGNU(fns, filepath.Join(t.TempDir(), "code.bin")); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(Divisions(fns)); got != "[f: div rcx at ]" {
		t.Errorf("Divisions = %s, want [f: div rcx at ]", got)
	}
	if len(fns[1].Instructions) != 1 || fns[1].Instructions[0].Text != "ret" {
		t.Errorf("second function decoded as %+v, want ret", fns[1].Instructions)
	}
}

// TestInStep checks the comparison with the assembler's listing on a
// function of a VPBROADCASTW and a DIVQ: it passes as listed, and fails
// where the listing has an instruction boundary the decoding lacks, or
// another mnemonic, or another size.
func TestInStep(t *testing.T) {
	d := disassembler(t, "amd64")
	listing := "# example.com/p\n" +
		"example.com/p.f STEXT nosplit asm size=12 args=0x8 locals=0x0 funcid=0x0 align=0x0\n" +
		"\t0x0000 00000 (/src/p/p_amd64.s:4)\tTEXT\texample.com/p.f(SB), NOSPLIT, $0-8\n" +
		"\t0x0000 00000 (/src/p/p_amd64.s:4)\tFUNCDATA\t$0, example.com/p.f.args_stackmap(SB)\n" +
		"\t0x0000 00000 (/src/p/p_amd64.s:5)\tVPBROADCASTW\tp<>+0(SB), Y15\n" +
		"\t0x0009 00009 (/src/p/p_amd64.s:6)\tDIVQ\tCX\n" +
		"\t0x0000 c4 62 7d 79 3d 00 00 00 00 48 f7 f1              .b}y=....H..\n" +
		"\trel 5+4 t=R_PCREL p<>+0\n"
	decode := func() *Function {
		fns := []Function{{Name: "example.com/p.f", Code: probe[:12]}}
		if err := d.decodeGNU(fns, filepath.Join(t.TempDir(), "code.bin")); err != nil {
			t.Fatal(err)
		}
		return &fns[0]
	}
	parse := func(l string) *AsmFunction {
		fns, err := ParseAsmListing([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		a, ok := fns["example.com/p.f"]
		if !ok || len(fns) != 1 {
			t.Fatalf("ParseAsmListing = %v, want example.com/p.f", fns)
		}
		return a
	}
	a := parse(listing)
	if fmt.Sprint(a.Offsets, a.Mnemonics, a.Positions) != "[0 9] [VPBROADCASTW DIVQ] [p_amd64.s:5 p_amd64.s:6]" {
		t.Errorf("ParseAsmListing = %+v", a)
	}
	f := decode()
	if err := InStep(f, a); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(Divisions([]Function{*f})); got != "[example.com/p.f: div rcx at p_amd64.s:6]" {
		t.Errorf("Divisions = %s, want the assembler's line", got)
	}
	for _, c := range []struct{ old, new, err string }{
		{"\t0x0009 00009", "\t0x0005 00005", "where the assembler put no instruction"},
		{"\tVPBROADCASTW\t", "\tVPBROADCASTB\t", "where the assembler put VPBROADCASTB"},
		{"size=12", "size=13", "the assembler made 13"},
		{"\tDIVQ\tCX\n", "\tDIVQ\tCX\n\t0x000b 00011 (/src/p/p_amd64.s:7)\tRET\n", "2 instructions decoded, the assembler made 3"},
	} {
		err := InStep(decode(), parse(strings.Replace(listing, c.old, c.new, 1)))
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%q -> %q: error %v, want %q", c.old, c.new, err, c.err)
		}
	}
}
