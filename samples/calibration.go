package samples

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
)

// WriteCalibrations adds rows to this session's calibrations: the
// session's part sNNN.parquet of calibrations/ is written again whole,
// with the rows of its earlier calls and these, and is durable when the
// call returns (a crash leaves the part as it was). The writer sets
// CaptureID, Session and Seq (the row's place in the session). It must come after WriteSession.
func (w *Writer) WriteCalibrations(rows []Calibration) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return errClosed
	}
	if !w.wroteSession {
		return errors.New("samples: WriteCalibrations before WriteSession")
	}
	if len(rows) == 0 {
		return nil
	}
	all := append(slices.Clone(w.calibrations), rows...)
	for i := range all {
		all[i].Seq = int32(i + 1)
	}
	st := stamp{captureID: w.id, session: w.session}
	name := sessionPart(w.session)
	t := tableNamed("calibrations")
	cv, cr := t.validText(reflect.ValueOf(all), w.redactOrKeep())
	if len(cr) > 0 {
		// The originals of values that are not UTF-8 (a data directory's
		// path) go in the session's part of raw_bytes, beside the host's.
		rt := tableNamed("raw_bytes")
		raws := append(slices.Clone(w.sessionRaws), cr...)
		if err := writePart(w.mem, w.codec, filepath.Join(w.dir, rt.Name), name, rt,
			reflect.ValueOf(raws), st, w.redact, true); err != nil {
			return err
		}
		w.noteRaw(fmt.Sprintf("session %d", w.session), cr)
	}
	if err := writePart(w.mem, w.codec, filepath.Join(w.dir, t.Name), name, t, cv, st, w.redact, true); err != nil {
		return err
	}
	w.calibrations = all
	return nil
}
