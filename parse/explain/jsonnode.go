package explain

import (
	"math"
	"strconv"

	"github.com/pgstudy/pgstudy/parse"
)

// node reads a plan node object.
func (d *jsonDecoder) node(n *Node) error {
	start := -1
	err := d.object("plan node", func(k string, line int) error {
		if start < 0 {
			start = line
		}
		return d.nodeKey(n, k, line)
	})
	if err != nil {
		return err
	}
	if n.NodeType == "" {
		if start < 0 {
			start = d.line()
		}
		return d.errorf(start, "plan node without a \"Node Type\"")
	}
	return nil
}

// nodeKey reads the value of a plan node's key k: here what the node is
// and what it works on; its figures in nodeFigure.
func (d *jsonDecoder) nodeKey(n *Node, k string, line int) error {
	var err error
	switch k {
	case "Node Type":
		n.NodeType, err = d.str(k, line)
	case "Strategy":
		n.Strategy, err = d.str(k, line)
	case "Partial Mode":
		n.PartialMode, err = d.str(k, line)
	case "Operation":
		n.Operation, err = d.str(k, line)
	case "Join Type":
		n.JoinType, err = d.str(k, line)
	case "Command":
		n.Command, err = d.str(k, line)
	case "Parent Relationship":
		n.ParentRelationship, err = d.str(k, line)
	case "Subplan Name":
		n.SubplanName, err = d.str(k, line)
	case "Custom Plan Provider":
		n.CustomPlanProvider, err = d.str(k, line)
	case "Parallel Aware":
		n.ParallelAware, err = d.boolean(k, line)
	case "Async Capable":
		n.AsyncCapable, err = d.boolean(k, line)
	case "Relation Name":
		n.RelationName, err = d.str(k, line)
	case "Function Name":
		n.FunctionName, err = d.str(k, line)
	case "CTE Name":
		n.CTEName, err = d.str(k, line)
	case "Schema":
		n.Schema, err = d.str(k, line)
	case "Alias":
		n.Alias, err = d.str(k, line)
	case "Index Name":
		n.IndexName, err = d.str(k, line)
	case "Scan Direction":
		n.ScanDirection, err = d.str(k, line)
	default:
		return d.nodeFigure(n, k, line)
	}
	return err
}

// nodeFigure reads the value of a plan node's key k: here its estimates,
// actual figures and children, then its buffers and WAL; any other key is
// kept in Extra.
func (d *jsonDecoder) nodeFigure(n *Node, k string, line int) error {
	var err error
	switch k {
	case "Startup Cost":
		n.StartupCost, err = d.float(k, line)
	case "Total Cost":
		n.TotalCost, err = d.float(k, line)
	case "Plan Rows":
		n.PlanRows, err = d.float(k, line)
	case "Plan Width":
		n.PlanWidth, err = d.integer(k, line)
	case "Actual Startup Time":
		n.ActualStartupTimeMs, err = d.float(k, line)
	case "Actual Total Time":
		n.ActualTotalTimeMs, err = d.float(k, line)
	case "Actual Rows":
		n.ActualRows, err = d.float(k, line)
	case "Actual Loops":
		n.ActualLoops, err = d.integer(k, line)
		if err == nil && n.ActualLoops.V == 0 {
			n.NeverExecuted = true
		}
	case "Disabled":
		n.Disabled, err = d.boolean(k, line)
	case "Rows Removed by Filter":
		n.RowsRemovedByFilter, err = d.float(k, line)
	case "Rows Removed by Index Recheck":
		n.RowsRemovedByIndexRecheck, err = d.float(k, line)
	case "Rows Removed by Join Filter":
		n.RowsRemovedByJoinFilter, err = d.float(k, line)
	case "Heap Fetches":
		n.HeapFetches, err = d.integer(k, line)
	case "Index Searches":
		n.IndexSearches, err = d.integer(k, line)
	case "Exact Heap Blocks":
		n.ExactHeapBlocks, err = d.integer(k, line)
	case "Lossy Heap Blocks":
		n.LossyHeapBlocks, err = d.integer(k, line)
	case "Workers Planned":
		n.WorkersPlanned, err = d.integer(k, line)
	case "Workers Launched":
		n.WorkersLaunched, err = d.integer(k, line)
	case "Workers":
		n.Workers = []Worker{}
		err = d.array(strconv.Quote(k), func(line int) error {
			w, err := d.worker()
			n.Workers = append(n.Workers, w)
			return err
		})
	case "Plans":
		n.Plans = []*Node{}
		err = d.array(strconv.Quote(k), func(line int) error {
			c := d.newNode()
			n.Plans = append(n.Plans, c)
			return d.node(c)
		})
	default:
		var ok bool
		if ok, err = d.buffers(&n.Buffers, k, line); ok || err != nil {
			return err
		}
		if ok, err = d.wal(&n.WAL, k, line); ok || err != nil {
			return err
		}
		err = d.extra(&n.Extra, k)
	}
	return err
}

func (d *jsonDecoder) worker() (Worker, error) {
	var w Worker
	err := d.object("worker", func(k string, line int) error {
		var err error
		switch k {
		case "Worker Number":
			var i parse.Opt[int64]
			if i, err = d.integer(k, line); err == nil {
				if i.V < 0 || i.V > math.MaxInt32 {
					return d.errorf(line, "%q: %d is out of range", k, i.V)
				}
				w.WorkerNumber = int(i.V)
			}
		case "Actual Startup Time":
			w.ActualStartupTimeMs, err = d.float(k, line)
		case "Actual Total Time":
			w.ActualTotalTimeMs, err = d.float(k, line)
		case "Actual Rows":
			w.ActualRows, err = d.float(k, line)
		case "Actual Loops":
			w.ActualLoops, err = d.integer(k, line)
		default:
			var ok bool
			if ok, err = d.buffers(&w.Buffers, k, line); ok || err != nil {
				return err
			}
			if ok, err = d.wal(&w.WAL, k, line); ok || err != nil {
				return err
			}
			err = d.extra(&w.Extra, k)
		}
		return err
	})
	return w, err
}

// buffers reads key if it is a BUFFERS or I/O timing key.
func (d *jsonDecoder) buffers(b *Buffers, key string, line int) (bool, error) {
	var ip *parse.Opt[int64]
	var fp *parse.Opt[float64]
	switch key {
	case "Shared Hit Blocks":
		ip = &b.SharedHitBlocks
	case "Shared Read Blocks":
		ip = &b.SharedReadBlocks
	case "Shared Dirtied Blocks":
		ip = &b.SharedDirtiedBlocks
	case "Shared Written Blocks":
		ip = &b.SharedWrittenBlocks
	case "Local Hit Blocks":
		ip = &b.LocalHitBlocks
	case "Local Read Blocks":
		ip = &b.LocalReadBlocks
	case "Local Dirtied Blocks":
		ip = &b.LocalDirtiedBlocks
	case "Local Written Blocks":
		ip = &b.LocalWrittenBlocks
	case "Temp Read Blocks":
		ip = &b.TempReadBlocks
	case "Temp Written Blocks":
		ip = &b.TempWrittenBlocks
	case "Shared I/O Read Time", "I/O Read Time":
		fp = &b.SharedIOReadTimeMs
	case "Shared I/O Write Time", "I/O Write Time":
		fp = &b.SharedIOWriteTimeMs
	case "Local I/O Read Time":
		fp = &b.LocalIOReadTimeMs
	case "Local I/O Write Time":
		fp = &b.LocalIOWriteTimeMs
	case "Temp I/O Read Time":
		fp = &b.TempIOReadTimeMs
	case "Temp I/O Write Time":
		fp = &b.TempIOWriteTimeMs
	default:
		return false, nil
	}
	var err error
	if ip != nil {
		*ip, err = d.integer(key, line)
	} else {
		*fp, err = d.float(key, line)
	}
	return true, err
}

// wal reads key if it is a WAL key.
func (d *jsonDecoder) wal(w *WAL, key string, line int) (bool, error) {
	var p *parse.Opt[int64]
	switch key {
	case "WAL Records":
		p = &w.WALRecords
	case "WAL FPI":
		p = &w.WALFPI
	case "WAL Bytes":
		p = &w.WALBytes
	case "WAL Buffers Full":
		p = &w.WALBuffersFull
	default:
		return false, nil
	}
	var err error
	*p, err = d.integer(key, line)
	return true, err
}
