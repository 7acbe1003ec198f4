package outdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// captureMarkers are folders every capture has (samples' capture and runs
// tables): a folder holding both is a capture.
var captureMarkers = []string{"capture", "runs"}

// isCapture reports whether dir is a capture: a folder holding the capture
// and runs table folders.
func isCapture(dir string) bool {
	for _, m := range captureMarkers {
		st, err := os.Lstat(filepath.Join(dir, m))
		if err != nil || !st.IsDir() {
			return false
		}
	}
	return true
}

// isOutput reports whether dir is an output folder pgstudy wrote.
func isOutput(dir string) bool {
	st, err := os.Lstat(filepath.Join(dir, recordName))
	return err == nil && st.Mode().IsRegular()
}

// CheckPlace refuses an output folder dir that is inside a capture or
// another output folder, or that is, holds or lies inside one of inputs.
func CheckPlace(dir string, inputs []string) error {
	if dir == "" {
		return &refusal{`""`, "is an empty name; expected a folder (an unset variable in -o \"$OUT\"?)"}
	}
	abs, err := resolve(dir)
	if err != nil {
		return err
	}
	for a := filepath.Dir(abs); ; a = filepath.Dir(a) {
		switch {
		case isCapture(a):
			return &refusal{dir, fmt.Sprintf("is inside the capture %s; pgstudy writes nothing into a capture but its runs", a)}
		case isOutput(a):
			return &refusal{dir, fmt.Sprintf("is inside %s, a folder pgstudy wrote and would replace whole; name a folder outside it", a)}
		}
		if a == filepath.Dir(a) {
			break
		}
	}
	for _, in := range inputs {
		ia, err := resolve(in)
		if err != nil {
			return err
		}
		switch {
		case ia == abs:
			return &refusal{dir, fmt.Sprintf("is %s, which is read; name another folder to write into", in)}
		case within(ia, abs):
			return &refusal{dir, fmt.Sprintf("holds %s, which is read; name a folder outside it", in)}
		case within(abs, ia):
			return &refusal{dir, fmt.Sprintf("is inside %s, which is read; name a folder outside it", in)}
		}
	}
	return nil
}

// CheckCapturePlace refuses a folder for a capture that a collect or an
// import cannot write: a file, a folder inside a capture or an output, a
// folder that holds anything (unless resume is set and it is a capture).
// again says what to do with a capture there already: a collect carries
// it on (--resume), an import writes a new one whole.
func CheckCapturePlace(dir string, resume bool, again string) error {
	if err := CheckPlace(dir, nil); err != nil {
		return err
	}
	st, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if resume {
			return &refusal{dir, "does not exist: --resume carries on a capture"}
		}
		return nil
	}
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return notAFolder(dir, st.Mode(), " for the capture")
	}
	if resume {
		if !isCapture(dir) {
			return &refusal{dir, "is not a capture (it has no capture/ and runs/ folders): --resume carries on a capture"}
		}
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		what := "holds " + entries[0].Name()
		if isCapture(dir) {
			what = "is a capture already (" + again + ")"
		}
		return &refusal{dir, what + "; name a new or empty folder for the capture"}
	}
	return nil
}

// within reports whether path a lies strictly inside folder b.
func within(a, b string) bool {
	rel, err := filepath.Rel(b, a)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// resolve makes path absolute with its symbolic links resolved, as far as
// it exists: two names of one folder resolve alike.
func resolve(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	rest := ""
	for p := abs; ; p = filepath.Dir(p) {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest), nil
		}
		if p == filepath.Dir(p) {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
}

// TempBeside makes a new, empty, uniquely named folder beside dir for
// writing dir's content before Place puts it there; purpose ("importing")
// is part of its name. Its mode is 0755, a capture being made to be shared.
func TempBeside(dir, purpose string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(abs), "."+filepath.Base(abs)+".pgstudy-"+purpose+"-")
	if err != nil {
		return "", err
	}
	return tmp, os.Chmod(tmp, 0o755)
}

// Place moves the finished folder tmp to dir, which must be absent or an
// empty folder: a file, or a folder someone filled meanwhile, is never
// replaced.
func Place(tmp, dir string) error {
	st, err := os.Lstat(dir)
	switch {
	case err == nil && st.IsDir():
		// os.Remove removes only an empty folder.
		if err := os.Remove(dir); err != nil {
			return &refusal{dir, "is no longer empty; the new folder is kept at " + tmp}
		}
	case err == nil:
		return &refusal{dir, "exists and is not a folder; the new folder is kept at " + tmp}
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	return renameNew(tmp, dir)
}
