package analyze

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/pgstudy/pgstudy/samples"
)

// TestRunColumns: readRuns decodes only runColumns of the runs table; a
// runs row whose other columns are zero must make the same run, or a
// column fillRun reads was left out of runColumns.
func TestRunColumns(t *testing.T) {
	full := samples.Run{}
	v := reflect.ValueOf(&full).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		if f.Kind() == reflect.Pointer {
			f.Set(reflect.New(f.Type().Elem()))
			f = f.Elem()
		}
		switch {
		case f.Type() == reflect.TypeFor[time.Time]():
			f.Set(reflect.ValueOf(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Add(time.Duration(i) * time.Second)))
		case f.Kind() == reflect.String:
			f.SetString("value " + v.Type().Field(i).Name)
		case f.CanInt():
			f.SetInt(int64(100 + i))
		default:
			t.Fatalf("field %s: fill it", v.Type().Field(i).Name)
		}
	}
	full.Kind, full.Status, full.Client = "timed", "ok", "pgx"
	kept := full
	k := reflect.ValueOf(&kept).Elem()
	for i := range k.NumField() {
		if !slices.Contains(runColumns, k.Type().Field(i).Tag.Get("pq")) {
			k.Field(i).SetZero()
		}
	}
	c := &capture{}
	var got, want Run
	c.fillRun(&got, &kept)
	c.fillRun(&want, &full)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("from runColumns alone:\n%+v\nfrom every column:\n%+v", got, want)
	}
	for _, col := range runColumns {
		if !slices.Contains(samples.Tables[slices.IndexFunc(samples.Tables, func(t samples.Table) bool { return t.Name == "runs" })].Columns(), col) {
			t.Errorf("runColumns names %s, which the runs table lacks", col)
		}
	}
}
