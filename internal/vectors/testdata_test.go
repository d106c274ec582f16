package vectors

import (
	"bytes"
	"compress/gzip"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The licence texts that must sit beside the data they cover.
var licenceFiles = []string{
	"mlkem/acvp/LICENSE-NIST.txt",
	"mlkem/wycheproof/LICENSE",
	"mlkem/cctv/UPSTREAM-README.md",
	"frodo/LICENSE-MIT.txt",
	"hpke/LICENSE",
	"pqnoise/clatter/LICENSE-clatter.txt",
	"pqnoise/clatter/LICENSE-go-clatter.txt",
}

// upstreamGzip are the directories of files that upstream publishes
// compressed: they are kept byte for byte, gzip header and all.
var upstreamGzip = []string{"mlkem/cctv/modulus/"}

// TestTestdata checks the repository's vector directory (not the one
// $PQKEM_VECTORS names): every directory holding data has a README beside
// it or in its parent, the licence texts are there, no file is stored both
// plain and compressed, and every compressed file decompresses, was written
// without a name or time stamp (gzip -n, so it reproduces byte for byte)
// (except those upstream published compressed) and is worth compressing.
func TestTestdata(t *testing.T) {
	root := "testdata"
	files := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !files["README.md"] {
		t.Error("testdata/README.md is missing")
	}
	for _, f := range licenceFiles {
		if !files[f] {
			t.Errorf("licence file %s is missing", f)
		}
	}
	size := 0
	for f := range files {
		fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		size += int(fi.Size())
		dir := path.Dir(f)
		if dir != "." && !files[dir+"/README.md"] && !files[path.Dir(dir)+"/README.md"] {
			t.Errorf("%s: no README.md in %s or its parent", f, dir)
		}
		plain, ok := strings.CutSuffix(f, gzSuffix)
		if !ok {
			continue
		}
		if files[plain] {
			t.Errorf("%s is stored both plain and compressed", plain)
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		fromUpstream := slices.ContainsFunc(upstreamGzip, func(dir string) bool { return strings.HasPrefix(f, dir) })
		if !fromUpstream && (zr.Name != "" || !zr.ModTime.IsZero()) {
			t.Errorf("%s: gzip header has name %q and time %v; compress with gzip -9 -n", f, zr.Name, zr.ModTime)
		}
		out, err := Gunzip(data)
		if err != nil {
			t.Errorf("%s: %v", f, err)
		}
		if len(out) < len(data) {
			t.Errorf("%s: %d bytes compressed, %d plain", f, len(data), len(out))
		}
	}
	t.Logf("%d files, %d bytes", len(files), size)
}
