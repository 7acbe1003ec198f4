package facts

import (
	"github.com/pgstudy/pgstudy/parse/pgstat"
	"github.com/pgstudy/pgstudy/samples"
)

// viewFact types one row of a view the analysis reads row by row.
func viewFact(s samples.Stat) (samples.ViewFact, error) {
	f := samples.ViewFact{RunID: s.RunID, Phase: s.Phase, View: s.View, Row: s.Row}
	switch s.View {
	case "pg_stat_activity":
		a, err := pgstat.ParseActivity(s.JSON, s.View)
		f.PID, f.BackendType, f.State, f.Query = &a.PID, &a.BackendType, &a.State, &a.Query
		return f, err
	case "pg_settings":
		st, err := pgstat.ParseSetting(s.JSON, s.View)
		f.Name, f.Setting, f.Unit, f.Source = &st.Name, &st.Setting, &st.Unit, &st.Source
		return f, err
	case "relation_sizes":
		r, err := pgstat.ParseRelationSize(s.JSON, s.View)
		f.Schema, f.Name, f.Kind, f.Table = &r.Schema, &r.Name, &r.Kind, &r.Table
		f.Bytes, f.TotalBytes, f.Tuples = num(r.Bytes), num(r.TotalBytes), num(r.Tuples)
		return f, err
	case "pg_aios":
		a, err := pgstat.ParseAIO(s.JSON, s.View)
		f.At, f.N, f.EveryMs = &a.At, num(a.N), num(a.EveryMs)
		if a.State != "" {
			f.State = &a.State
		}
		return f, err
	}
	return f, nil
}

func num(n pgstat.Num) *float64 {
	if !n.Valid {
		return nil
	}
	return &n.V
}

func val(p *float64) pgstat.Num {
	if p == nil {
		return pgstat.Num{}
	}
	return pgstat.Num{V: *p, Valid: true}
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// Activity is a pg_stat_activity fact as parse/pgstat read it.
func Activity(f *samples.ViewFact) pgstat.Activity {
	var pid int64
	if f.PID != nil {
		pid = *f.PID
	}
	return pgstat.Activity{PID: pid, BackendType: str(f.BackendType), State: str(f.State), Query: str(f.Query)}
}

// Setting is a pg_settings fact as parse/pgstat read it.
func Setting(f *samples.ViewFact) pgstat.Setting {
	return pgstat.Setting{Name: str(f.Name), Setting: str(f.Setting), Unit: str(f.Unit), Source: str(f.Source)}
}

// RelationSize is a relation_sizes fact as parse/pgstat read it.
func RelationSize(f *samples.ViewFact) pgstat.RelationSize {
	return pgstat.RelationSize{Schema: str(f.Schema), Name: str(f.Name), Kind: str(f.Kind), Table: str(f.Table),
		Bytes: val(f.Bytes), TotalBytes: val(f.TotalBytes), Tuples: val(f.Tuples)}
}

// AIO is a pg_aios fact as parse/pgstat read it.
func AIO(f *samples.ViewFact) pgstat.AIO {
	return pgstat.AIO{At: str(f.At), State: str(f.State), N: val(f.N), EveryMs: val(f.EveryMs)}
}
