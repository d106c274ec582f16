package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/pqkem/pqkem/internal/cli"
	"github.com/pqkem/pqkem/kem"
)

var cmdList = &cli.Command{
	Name:    "list",
	Summary: "list every scheme with its sizes and status",
	Args:    "[-names]",
	Doc: `
List prints every scheme pqkem has, with its sizes in bytes: the
encapsulation key, the decapsulation key (as stored: for ML-KEM, the
64-byte seed d || z, from which the key pair is derived), the
ciphertext, the shared key, and the randomness one encapsulation uses.
The status names each scheme's specification and its limits: eFrodoKEM
keys are for fewer than 2^8 ciphertexts, and the Frodo paper's own key
exchange (Frodo-CCS2016-*) is passively secure, its keys serve one
exchange and have no key files (keygen refuses it; demo runs it). Its
decapsulation key lives only in memory and has no encoding, so its size
is "-". Then it names the schemes that are planned but not available
yet, and notes where other libraries name a scheme otherwise ('pqkem help
keys' has the names).

Every name it prints is a name -alg takes (in any case).`,
	Example: `
pqkem list
for alg in $(pqkem list -names); do pqkem demo -alg "$alg"; done`,
	New: func() cli.Runner { return new(listCmd) },
}

// listCmd is one run of pqkem list.
type listCmd struct {
	names bool
}

func (c *listCmd) Flags(fs *flag.FlagSet) {
	fs.BoolVar(&c.names, "names", false, "print only the names of the available schemes, one a line")
}

func (c *listCmd) Run(out *cli.Output, args []string) error {
	if err := cli.NoArgs(args); err != nil {
		return err
	}
	if c.names {
		for _, s := range allSchemes() {
			fmt.Fprintln(out.Stdout, s.Name())
		}
		return nil
	}
	return list(out.Stdout, allSchemes())
}

// planned are the schemes that are to come, by family. list names those
// not registered yet, so a scheme leaves this list by itself when its
// package registers it.
var planned = []struct {
	family string
	names  []string
}{
	{"hybrids", []string{"X-Wing", "X25519MLKEM768", "SecP256r1MLKEM768", "SecP384r1MLKEM1024", "MLKEM768-P256", "MLKEM1024-P384"}},
	{"FrodoKEM", []string{
		"FrodoKEM-640-AES", "FrodoKEM-640-SHAKE", "FrodoKEM-976-AES", "FrodoKEM-976-SHAKE", "FrodoKEM-1344-AES", "FrodoKEM-1344-SHAKE",
		"eFrodoKEM-640-AES", "eFrodoKEM-640-SHAKE", "eFrodoKEM-976-AES", "eFrodoKEM-976-SHAKE", "eFrodoKEM-1344-AES", "eFrodoKEM-1344-SHAKE",
	}},
}

func list(w io.Writer, schemes []kem.Scheme) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "SCHEME\tENCAPS KEY\tDECAPS KEY\tCIPHERTEXT\tSHARED KEY\tENCAPS SEED\tSTATUS\n")
	registered := make(map[string]bool)
	for _, s := range schemes {
		registered[strings.ToLower(s.Name())] = true
		status := "available"
		if sp, ok := s.(kem.Specifier); ok {
			status += " (" + sp.Specification() + ")"
		}
		dkSize := strconv.Itoa(s.DecapsulationKeySize())
		if kem.SingleUse(s) {
			dkSize = "-" // the key has no encoding
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%d\t%d\t%s\n", s.Name(),
			s.EncapsulationKeySize(), dkSize, s.CiphertextSize(),
			s.SharedKeySize(), s.EncapsulationSeedSize(), status)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nSizes are in bytes.\n")
	printNamesNote(w, registered, schemes)

	header := false
	for _, p := range planned {
		var todo []string
		for _, name := range p.names {
			if !registered[strings.ToLower(name)] {
				todo = append(todo, name)
			}
		}
		if len(todo) == 0 {
			continue
		}
		if !header {
			fmt.Fprintf(w, "\nPlanned, not available yet:\n")
			header = true
		}
		fmt.Fprintf(w, "  %s:\n", p.family)
		printWrapped(w, "    ", todo, 78)
	}
	return nil
}

// printNamesNote says, if both schemes are listed, that CIRCL's
// FrodoKEM-640-SHAKE is pqkem's eFrodoKEM-640-SHAKE.
func printNamesNote(w io.Writer, registered map[string]bool, schemes []kem.Scheme) {
	if !registered["efrodokem-640-shake"] || !registered["frodokem-640-shake"] {
		return
	}
	size := func(name string) int {
		for _, s := range schemes {
			if strings.EqualFold(s.Name(), name) {
				return s.CiphertextSize()
			}
		}
		return 0
	}
	fmt.Fprintf(w, "\nNames: CIRCL's \"FrodoKEM-640-SHAKE\" is eFrodoKEM-640-SHAKE here (NIST round 3,\n")
	fmt.Fprintf(w, "%d-byte ciphertexts), not FrodoKEM-640-SHAKE (the salted version, %d bytes):\n",
		size("eFrodoKEM-640-SHAKE"), size("FrodoKEM-640-SHAKE"))
	fmt.Fprintf(w, "the keys and ciphertexts of the two do not mix.\n")
}

// printWrapped prints words separated by ", ", in lines of at most width
// columns (unless a word is longer) that start with indent.
func printWrapped(w io.Writer, indent string, words []string, width int) {
	line := indent
	for i, word := range words {
		if i < len(words)-1 {
			word += ","
		}
		if line != indent && len(line)+1+len(word) > width {
			fmt.Fprintln(w, line)
			line = indent
		}
		if line != indent {
			line += " "
		}
		line += word
	}
	fmt.Fprintln(w, line)
}
