package analyze

import (
	"cmp"
	"slices"
	"strings"
)

// relevantSettings are the settings most likely to change a result, in
// the order they are shown: storage and I/O first, then memory,
// parallelism, the planner and WAL.
var relevantSettings = []string{
	"data_checksums", "io_method", "io_workers", "effective_io_concurrency", "maintenance_io_concurrency",
	"io_combine_limit", "io_max_combine_limit", "io_max_concurrency", "shared_buffers", "work_mem", "maintenance_work_mem",
	"effective_cache_size", "huge_pages", "max_parallel_workers_per_gather", "max_parallel_workers",
	"max_parallel_maintenance_workers", "max_worker_processes", "jit", "random_page_cost", "seq_page_cost",
	"default_statistics_target", "block_size", "wal_block_size", "wal_segment_size", "wal_level", "full_page_writes",
	"wal_compression", "wal_buffers", "synchronous_commit", "fsync", "checkpoint_timeout", "max_wal_size",
	"backend_flush_after", "track_io_timing", "autovacuum", "vacuum_buffer_usage_limit", "vacuum_cost_delay",
	"vacuum_cost_limit", "vacuum_max_eager_freeze_failure_rate", "autovacuum_vacuum_cost_delay",
}

// identitySettings differ between any two servers without changing what
// they do: where they live and what they are called.
var identitySettings = []string{
	"port", "data_directory", "config_file", "hba_file", "ident_file", "external_pid_file", "unix_socket_directories",
	"cluster_name", "server_version", "server_version_num", "log_directory", "log_filename", "application_name",
}

// SettingRow is a setting whose value differs between configurations.
type SettingRow struct {
	Host     string
	Name     string
	Values   map[string]string // by configuration; "(absent)" where the server has no such setting
	Sources  map[string]string // pg_settings.source
	Declared bool
	Relevant bool
	// OnlySome is set when the setting exists in some configurations'
	// servers only (a version added it).
	OnlySome bool
	// Varies lists the configurations whose value changed between rounds.
	Varies []string
}

const absent = "(absent)"

// settingsDiff finds the settings that differ between configurations, as
// each configuration's server reported them in the rounds analysed.
func (a *Analysis) settingsDiff(byHost map[string]map[string]map[string]*settingValues) {
	for _, h := range a.Hosts {
		// values per setting, per configuration
		vals := map[string]map[string]map[string]bool{}
		src := map[string]map[string]string{}
		configs := map[string]bool{}
		for config, byName := range byHost[h] {
			if !slices.Contains(a.Configs, config) {
				continue
			}
			configs[config] = true
			for name, v := range byName {
				if vals[name] == nil {
					vals[name], src[name] = map[string]map[string]bool{}, map[string]string{}
				}
				vals[name][config] = v.values
				src[name][config] = v.source
			}
		}
		if len(configs) < 2 {
			continue
		}
		var rows []SettingRow
		for name, byConfig := range vals {
			if slices.Contains(identitySettings, name) {
				continue
			}
			row := SettingRow{Host: h, Name: name, Values: map[string]string{}, Sources: map[string]string{}, Declared: a.study[h].Declares(name),
				Relevant: slices.Contains(relevantSettings, name)}
			distinct := map[string]bool{}
			for _, c := range a.Configs {
				if !configs[c] {
					continue
				}
				vs := byConfig[c]
				switch {
				case len(vs) == 0:
					row.Values[c] = absent
					row.OnlySome = true
				case len(vs) == 1:
					for v := range vs {
						row.Values[c] = v
					}
				default:
					row.Values[c] = strings.Join(sortedKeys(vs), " / ")
					row.Varies = append(row.Varies, c)
				}
				row.Sources[c] = src[name][c]
				distinct[row.Values[c]] = true
			}
			if len(distinct) > 1 || len(row.Varies) > 0 {
				rows = append(rows, row)
			}
		}
		slices.SortFunc(rows, func(x, y SettingRow) int {
			rank := func(r SettingRow) int {
				if i := slices.Index(relevantSettings, r.Name); i >= 0 {
					return i
				}
				return len(relevantSettings)
			}
			return cmp.Or(cmp.Compare(rank(x), rank(y)), cmp.Compare(x.Name, y.Name))
		})
		a.Settings = append(a.Settings, rows...)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
