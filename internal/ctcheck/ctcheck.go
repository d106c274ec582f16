// Package ctcheck finds division instructions in compiled Go packages.
//
// A hardware divider takes a time that depends on its operands on most
// CPUs, so a division of a secret leaks it: KyberSlash (2024) recovered
// ML-KEM keys from the division by q in the reference implementation's
// compression of the decrypted message. The test of this package compiles
// every package that handles secrets (internal/fips203, internal/keccak,
// mlkem, hybrid, frodo, pake and the packages under them), for amd64 with
// and without the purego tag and for arm64, disassembles the objects with
// `go tool objdump` and fails on any DIV, IDIV (amd64), UDIV or SDIV
// (arm64) or floating-point division outside an allowlist of functions
// that divide public values only, each with its reason.
//
// Package objects, not a linked binary, are checked, so every function is
// seen, even one no test or command calls. Go compiles a division by a
// constant into a multiplication and shifts, so x / q in Go source is not
// flagged, and need not be: only divisions by a variable reach the
// divider. Assembly (*.s) is in the objects too, and checked the same way.
package ctcheck

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
)

// Division is one division instruction in a compiled function.
type Division struct {
	Function    string // the symbol, as objdump names it, without "(SB)"
	Position    string // file:line of the instruction
	Instruction string // as objdump prints it, e.g. "IDIVQ SI"
}

func (d Division) String() string {
	return fmt.Sprintf("%s: %s at %s", d.Function, d.Instruction, d.Position)
}

// divisionRE matches the mnemonics that use a divider: integer division
// on amd64 (DIVB ... DIVQ, IDIV...) and arm64 (UDIV, SDIV and their W
// forms), and floating-point division (DIVSS, DIVSD, VDIVPS, VDIVPD,
// FDIVS, FDIVD), which is also variable time on some CPUs.
var divisionRE = regexp.MustCompile(`^(I?DIV[BWLQ]?|V?DIV[SP][SD]|[US]DIVW?|FDIV[SD])$`)

// ObjdumpDivisions disassembles the object, archive or binary at path with
// `go tool objdump` and returns every division instruction in it.
func ObjdumpDivisions(goTool, path string) ([]Division, error) {
	cmd := exec.Command(goTool, "tool", "objdump", path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go tool objdump %s: %w\n%s", path, err, stderr.Bytes())
	}
	return ParseObjdump(out), nil
}

// ParseObjdump returns the division instructions of a `go tool objdump`
// listing: lines "TEXT symbol(SB) file" open a function, and each
// instruction line is "  file:line  address  encoding  MNEMONIC operands",
// separated by tabs.
func ParseObjdump(listing []byte) []Division {
	var divs []Division
	fn := ""
	sc := bufio.NewScanner(bytes.NewReader(listing))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "TEXT "); ok {
			fn, _, _ = strings.Cut(rest, " ")
			fn = strings.TrimSuffix(fn, "(SB)")
			continue
		}
		fields := strings.Split(strings.TrimSpace(line), "\t")
		var cols []string
		for _, f := range fields {
			if f = strings.TrimSpace(f); f != "" {
				cols = append(cols, f)
			}
		}
		// position, address, encoding, instruction[, relocation]
		if len(cols) < 4 {
			continue
		}
		inst := cols[3]
		mnemonic, _, _ := strings.Cut(inst, " ")
		if divisionRE.MatchString(mnemonic) {
			divs = append(divs, Division{Function: fn, Position: cols[0], Instruction: inst})
		}
	}
	return divs
}
