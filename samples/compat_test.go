package samples

import (
	"bytes"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"testing/fstest"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"
	"github.com/klauspost/compress/zstd"
)

// TestParquetFile reads a part with the low-level Parquet reader, not the
// arrow path the package uses, and checks what other tools will see: zstd
// chunks, one row group, dictionary pages, the format metadata, UTC
// microsecond timestamps, required and optional columns, the values.
func TestParquetFile(t *testing.T) {
	w, dir := mustCreate(t, Options{})
	b := &Batch{
		Run:       Run{RunID: 1, Status: "ok", BackendPID: ptr(int32(4242))},
		Diskstats: []Diskstats{{Seq: 0, Phase: "before", Text: "first"}, {Seq: 1, Phase: "after", Text: "second ✓"}},
	}
	b.Diskstats[1].TakenAt = time.Date(2025, 1, 2, 3, 4, 5, 678901000, time.UTC)
	if err := w.Commit(b); err != nil {
		t.Fatal(err)
	}

	pf, err := file.OpenParquetFile(filepath.Join(dir, "diskstats", "r000001.parquet"), false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	md := pf.MetaData()
	if v := md.KeyValueMetadata().FindValue(MetaFormatVersion); v == nil || *v != strconv.Itoa(FormatVersion) {
		t.Errorf("format version metadata %v", v)
	}
	if v := md.KeyValueMetadata().FindValue(MetaTable); v == nil || *v != "diskstats" {
		t.Errorf("table metadata %v", v)
	}
	if pf.NumRowGroups() != 1 || md.NumRows != 2 {
		t.Fatalf("%d row groups, %d rows", pf.NumRowGroups(), md.NumRows)
	}
	rg := md.RowGroup(0)
	for i := range md.Schema.NumColumns() {
		cc, err := rg.ColumnChunk(i)
		if err != nil {
			t.Fatal(err)
		}
		if cc.Compression() != compress.Codecs.Zstd {
			t.Errorf("column %s: compression %v", md.Schema.Column(i).Name(), cc.Compression())
		}
		// Text and 32-bit numbers repeat: a dictionary; 64-bit numbers
		// and times (run_id, taken_at, offset_ns) rarely do: plain.
		name, phys := md.Schema.Column(i).Name(), md.Schema.Column(i).PhysicalType()
		wantDict := phys != parquet.Types.Int64 && phys != parquet.Types.Double
		if cc.HasDictionaryPage() != wantDict {
			t.Errorf("column %s (%v): dictionary page %v, want %v", name, phys, cc.HasDictionaryPage(), wantDict)
		}
		if !wantDict && !slices.Equal(cc.Encodings(), []parquet.Encoding{parquet.Encodings.Plain, parquet.Encodings.RLE}) &&
			!slices.Equal(cc.Encodings(), []parquet.Encoding{parquet.Encodings.RLE, parquet.Encodings.Plain}) {
			t.Errorf("column %s: encodings %v, want PLAIN values (and RLE levels)", name, cc.Encodings())
		}
	}
	ts := md.Schema.Column(md.Schema.ColumnIndexByName("taken_at"))
	if lt, ok := ts.LogicalType().(schema.TimestampLogicalType); !ok || !lt.IsAdjustedToUTC() || lt.TimeUnit() != schema.TimeUnitMicros {
		t.Errorf("taken_at: %v", ts.LogicalType())
	}
	if ts.MaxDefinitionLevel() != 0 {
		t.Error("taken_at should be required")
	}

	// The values, through the column chunk reader.
	rgr := pf.RowGroup(0)
	col, err := rgr.Column(md.Schema.ColumnIndexByName("text"))
	if err != nil {
		t.Fatal(err)
	}
	texts := make([]parquet.ByteArray, 2)
	n, _, err := col.(*file.ByteArrayColumnChunkReader).ReadBatch(2, texts, nil, nil)
	if err != nil || n != 2 || string(texts[0]) != "first" || string(texts[1]) != "second ✓" {
		t.Errorf("text: %d %q %v", n, texts, err)
	}
	col, err = rgr.Column(md.Schema.ColumnIndexByName("taken_at"))
	if err != nil {
		t.Fatal(err)
	}
	micros := make([]int64, 2)
	if _, _, err := col.(*file.Int64ColumnChunkReader).ReadBatch(2, micros, nil, nil); err != nil ||
		micros[1] != b.Diskstats[1].TakenAt.UnixMicro() {
		t.Errorf("taken_at: %v %v", micros, err)
	}

	rf, err := file.OpenParquetFile(filepath.Join(dir, "runs", "r000001.parquet"), false)
	if err != nil {
		t.Fatal(err)
	}
	defer rf.Close()
	pid := rf.MetaData().Schema.Column(rf.MetaData().Schema.ColumnIndexByName("backend_pid"))
	if pid.MaxDefinitionLevel() != 1 || pid.PhysicalType() != parquet.Types.Int32 {
		t.Errorf("backend_pid: def %d type %v", pid.MaxDefinitionLevel(), pid.PhysicalType())
	}
}

func ptr[T any](v T) *T { return &v }

// withVersion returns a copy of table name whose parts claim format v.
func withVersion(name string, v int) *Table {
	tb := *tableNamed(name)
	md := arrow.NewMetadata([]string{MetaFormatVersion, MetaTable}, []string{strconv.Itoa(v), name})
	tb.Schema = arrow.NewSchema(tb.Schema.Fields(), &md)
	return &tb
}

// writeTestPart writes a part of run 1 of the capture in dir.
func writeTestPart(t *testing.T, dir string, tb *Table, name string, rows any) {
	t.Helper()
	id := "0123456789abcdef"
	if r, err := openFS(os.DirFS(dir), "."); err == nil && len(r.Captures()) > 0 {
		id = r.Captures()[0].CaptureID
	}
	err := writePart(memory.DefaultAllocator, compress.Codecs.Zstd, filepath.Join(dir, tb.Name), name, tb,
		reflect.ValueOf(rows), stamp{captureID: id, session: 1, runID: 1, hasRunID: true}, nil, true)
	if err != nil {
		t.Fatal(err)
	}
}

func TestFormatVersion(t *testing.T) {
	w, dir := mustCreate(t, Options{})
	w.Close()
	writeTestPart(t, dir, withVersion("runs", FormatVersion+1), "r000009.parquet", []Run{{}})
	r := mustOpen(t, dir)
	_, err := Read[Run](r)
	mustContain(t, err, filepath.Join(dir, "runs", "r000009.parquet"), "format version 2", "newer")

	writeTestPart(t, dir, withVersion("capture", FormatVersion+1), "s002.parquet", []Capture{{}})
	_, err = Open(dir)
	mustContain(t, err, filepath.Join(dir, "capture", "s002.parquet"), "format version 2", "newer")
	_, _, err = Resume(dir, Options{})
	mustContain(t, err, "s002.parquet", "newer")
}

// runEarlier is the runs table as an earlier pgstudy wrote it: its
// columns in another order (they are matched by name) and without the
// nullable ones added since.
type runEarlier struct {
	CaptureID string    `pq:"capture_id"`
	Devices   string    `pq:"devices"`
	RunID     int64     `pq:"run_id"`
	Session   int32     `pq:"session"`
	Round     int32     `pq:"round"`
	Position  int32     `pq:"position"`
	Config    string    `pq:"config"`
	Test      string    `pq:"test"`
	Kind      string    `pq:"kind"`
	Client    string    `pq:"client"`
	StartedAt time.Time `pq:"started_at"`
	EndedAt   time.Time `pq:"ended_at"`
	ElapsedNs int64     `pq:"elapsed_ns"`
	Status    string    `pq:"status"`
	Error     string    `pq:"error"`
	Cold      string    `pq:"cold"`
}

// runOlder lacks non-nullable columns.
type runOlder struct {
	CaptureID string `pq:"capture_id"`
	RunID     int64  `pq:"run_id"`
	Status    string `pq:"status"`
}

func TestReadByColumnName(t *testing.T) {
	w, dir := mustCreate(t, Options{})
	w.Close()
	earlier := newTable[runEarlier]("runs")
	writeTestPart(t, dir, &earlier, "r000001.parquet", []runEarlier{{Devices: "nvme0n1", Status: "ok", Round: 3}})
	runs, err := Read[Run](mustOpen(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].Devices != "nvme0n1" || runs[0].Status != "ok" || runs[0].Round != 3 ||
		runs[0].RunID != 1 || runs[0].BackendPID != nil || runs[0].WALLSNBefore != nil || runs[0].WALPosAfter != nil {
		t.Errorf("runs %+v", runs)
	}

	old := newTable[runOlder]("runs")
	writeTestPart(t, dir, &old, "r000002.parquet", []runOlder{{Status: "ok"}})
	_, err = Read[Run](mustOpen(t, dir))
	mustContain(t, err, filepath.Join(dir, "runs", "r000002.parquet"), "column session is missing")
	os.Remove(filepath.Join(dir, "runs", "r000002.parquet"))

	// A column missing and one unknown: a damaged name, not an old part.
	damaged := newTable[runDamaged]("runs")
	writeTestPart(t, dir, &damaged, "r000003.parquet", []runDamaged{{Status: "ok"}})
	_, err = Read[Run](mustOpen(t, dir))
	mustContain(t, err, filepath.Join(dir, "runs", "r000003.parquet"), `column run_id is missing and column "backend_pie" unknown`)
}

// runDamaged is a runs part whose backend_pid column lost a bit of its
// name.
type runDamaged struct {
	CaptureID string `pq:"capture_id"`
	Status    string `pq:"status"`
	PID       *int32 `pq:"backend_pie"`
}

// readOnlyFS hides ReadAt and Seek, as a file system may.
type readOnlyFS struct{ fs.FS }

func (f readOnlyFS) Open(name string) (fs.File, error) {
	file, err := f.FS.Open(name)
	if err != nil {
		return nil, err
	}
	if st, err := file.Stat(); err == nil && st.IsDir() {
		return file, nil
	}
	return struct{ fs.File }{file}, nil
}

func TestOpenFS(t *testing.T) {
	w, dir := mustCreate(t, Options{})
	if err := w.Commit(fullBatch(w.CaptureID(), 1, 1, 3, nil)); err != nil {
		t.Fatal(err)
	}
	w.Close()
	want := readAll(t, mustOpen(t, dir))

	// As embedded: under a folder, only files (no empty folders), no temp
	// files.
	mfs := fstest.MapFS{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		mfs[path.Join("testdata/sample", filepath.ToSlash(rel))] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	mfs["testdata/sample/runs/.r000002-1.tmp"] = &fstest.MapFile{Data: []byte("junk")}
	for name, fsys := range map[string]fs.FS{"mapfs": mfs, "no ReaderAt": readOnlyFS{mfs}} {
		r, err := openFS(fsys, "testdata/sample")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if r.Dir() != "testdata/sample" {
			t.Errorf("%s: Dir %q", name, r.Dir())
		}
		if got := readAll(t, r); !sameRows(got, want) {
			t.Errorf("%s: rows differ", name)
		}
	}
	_, err = openFS(mfs, "testdata")
	mustContain(t, err, "testdata", "not a pgstudy capture")
	_, err = openFS(mfs, "../x")
	mustContain(t, err, "invalid path")
}

// TestZstdCodec checks the registered codec makes standard zstd frames that
// a fresh decoder reads, at the default and at an explicit level, and that
// a damaged frame is an error from its decoder, not a panic.
func TestZstdCodec(t *testing.T) {
	codec, err := compress.GetCodec(compress.Codecs.Zstd)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := codec.(boundedZstd); !ok {
		t.Fatalf("zstd codec is %T", codec)
	}
	if _, err := compress.Decode(codec, nil, []byte("\x28\xb5\x2f\xfd not a frame")); err == nil {
		t.Error("a damaged frame decoded")
	}
	src := []byte(randomText(300 << 10))
	dec, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	for _, level := range []int{compress.DefaultCompressionLevel, 1, 9} {
		enc := codec.EncodeLevel(make([]byte, 10), src, level)
		if int64(len(enc)) > codec.CompressBound(int64(len(src))) {
			t.Errorf("level %d: %d bytes beyond the bound", level, len(enc))
		}
		got, err := dec.DecodeAll(enc, nil)
		if err != nil || !bytes.Equal(got, src) {
			t.Errorf("level %d: %v", level, err)
		}
		if got := codec.Decode(nil, enc); !bytes.Equal(got, src) {
			t.Errorf("level %d: own decode differs", level)
		}
	}
}

// TestCorruptPart: a damaged part is an error naming it, not a crash.
func TestCorruptPart(t *testing.T) {
	w, dir := mustCreate(t, Options{})
	if err := w.Commit(&Batch{Run: Run{RunID: 1, Error: randomText(100 << 10)}}); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "runs", "r000001.parquet")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for i := 200; i < len(data)/2; i++ {
		data[i] ^= 0x5a
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Read[Run](mustOpen(t, dir))
	mustContain(t, err, p)
	os.WriteFile(p, []byte("not parquet"), 0o644)
	_, err = Read[Run](mustOpen(t, dir))
	mustContain(t, err, p)
}

// TestPartBytesRepeat: the same rows make the same bytes, part after part
// (the zstd encoders are reused between pages and parts), so a capture
// written again from the same rows is byte for byte the same.
func TestPartBytesRepeat(t *testing.T) {
	rows := make([]Diskstats, 300)
	for i := range rows {
		rows[i] = Diskstats{Seq: int32(i), Phase: "sample", OffsetNs: int64(i) * 1e8, Text: diskstatsText(i, 4<<10)}
	}
	var first []byte
	for i := range 3 {
		dir := t.TempDir()
		os.Mkdir(filepath.Join(dir, "diskstats"), 0o755)
		writeTestPart(t, dir, tableNamed("diskstats"), "r000001.parquet", rows)
		got, err := os.ReadFile(filepath.Join(dir, "diskstats", "r000001.parquet"))
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = got
		} else if !bytes.Equal(got, first) {
			t.Fatalf("write %d: %d bytes differ from the first write's %d", i+1, len(got), len(first))
		}
	}
}
