package collect

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzManifest: any bytes give files or errors that name the manifest and
// a line within it, never a panic; every file accepted stays inside the
// manifest's folder and has a round from 1.
func FuzzManifest(f *testing.F) {
	files, _ := filepath.Glob("testdata/import/*.csv")
	for _, file := range files {
		b, _ := os.ReadFile(file)
		f.Add(b)
	}
	for _, s := range []string{
		"", "\n", "\x00",
		"round,position,config,test,kind,path\n1,,a,t,psql,a.out\n",
		"round,position,config,test,kind,path,started_at\n1,2,a,t,psql,x/a.out,2026-05-01T14:03:00Z\n2,,b,t,diskstats-before,../a\n",
		"round,position,config,test,kind,path\n\"1,,a,t,psql,a.out\n",
		"round,position,config,test,kind,path\n0,x,a,t,psql,/etc/passwd\n1,1,a,t\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		const name = "dir/m.csv"
		lines := bytes.Count(in, []byte("\n")) + 1
		got, errs := readManifest(bytes.NewReader(in), name, bytes.Count(in, []byte{'\n'}))
		if len(got) == 0 && len(errs) == 0 {
			t.Fatal("no file and no error")
		}
		for _, e := range errs {
			if e.File != name {
				t.Fatalf("error without its file: %v", e)
			}
			if e.Line < 0 || e.Line > lines {
				t.Fatalf("error at line %d of a %d-line input: %v", e.Line, lines, e)
			}
		}
		for _, f := range got {
			if !filepath.IsLocal(filepath.FromSlash(f.rel)) || filepath.Clean(f.rel) == "." {
				t.Fatalf("file %q is not a file in the manifest's folder", f.rel)
			}
			if f.round < 1 || f.position < 0 || f.line < 2 || f.line > lines {
				t.Fatalf("accepted a bad row: %+v", f)
			}
		}
	})
}

// FuzzPattern: any pattern compiles or is refused with a message naming
// it, never a panic; a pattern accepted is relative and matches no path
// that leaves the folder.
func FuzzPattern(f *testing.F) {
	for _, s := range []string{
		"round{round}/{config}/{test}/{kind}.out", "{round}-{position}-{config}-{test}-{kind}",
		"{round}/{config}/{test}/{kind}", "/{round}/{config}/{test}/{kind}", "../{round}{config}{test}{kind}",
		"{round}{round}", "{nope}", "",
	} {
		f.Add(s, "1/a/t/psql")
	}
	f.Fuzz(func(t *testing.T, pattern, path string) {
		re, names, err := compilePattern(pattern)
		if err != nil {
			if !strings.Contains(err.Error(), fmt.Sprintf("pattern %q", pattern)) {
				t.Fatalf("error without its pattern: %v", err)
			}
			return
		}
		if len(names) < 4 {
			t.Fatalf("accepted %q naming only %v", pattern, names)
		}
		if filepath.IsAbs(pattern) || strings.HasPrefix(pattern, "../") {
			t.Fatalf("accepted %q, which leaves the folder", pattern)
		}
		re.FindStringSubmatch(path)
	})
}
