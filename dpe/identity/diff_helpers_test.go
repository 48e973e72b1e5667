package identity

// Diff is DiffTables without a grid: the tests' comparison of two
// results where no table's cells matter.
func Diff(old, new *Result) *Changes { return DiffTables(old, new, nil) }
