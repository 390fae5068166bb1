// Package golden stores what a sync did as a reviewable YAML file and
// compares later runs with it.
//
// [Render] turns a sync (its writes, events, work-queue records and error)
// into canonical YAML: keys sorted, volatile metadata removed, LF line
// endings, a trailing newline, nothing that changes between runs or
// machines. A change in controller behaviour then shows up as a readable
// diff of that file in a pull request. The fixture package renders its
// results through this package (fixture.Result.AssertGolden, Checks.Golden,
// fixture.Cases).
//
// # Normalizers
//
// Besides volatile metadata, [Render] replaces what a real controller makes
// differently on every run: condition timestamps (lastTransitionTime,
// lastUpdateTime, ...) render as "<time>", UUID-shaped uids (owner
// references to objects made with uuid.NewUUID) as "<uid-N>" by order of
// appearance. metadata.generation is kept, so that a reviewer can check
// status.observedGeneration against it. Fields of your own go through
// [Mask] and [WithTransform] (fixture: Table.GoldenOptions,
// Row.GoldenOptions, Cases.GoldenOptions, Result.AssertGolden(opts...));
// [KeepUIDs] and actions.KeepConditionTimes turn the built-in ones off. A package
// whose directory is read-only keeps its files elsewhere with [InDir],
// among the same options.
//
// [Assert] compares a document with the golden file of the running test,
// testdata/<TestName>/<subtest>.golden.yaml ([Path]; names are sanitized by
// [SanitizeName] so that no name escapes testdata/ and no two subtests share
// a file). A mismatch prints a line diff and the exact command that updates
// the file; a missing file fails (it is never created silently); a corrupt
// file fails with its path and the parse error.
//
// # Updating
//
// `go test ./pkg -update` rewrites the golden files of pkg. The flag is
// defined here, unless another package of the test binary defined -update
// first, in which case that flag is honoured. For a whole tree set the
// environment variable instead, `CTRLTEST_UPDATE=1 go test ./...`: the flag
// would fail in every package that does not use golden files; a value that
// is not a boolean ("yes", "on") fails every comparison rather than being
// read as false. Writes are atomic (a temporary file in the same directory,
// then a rename); a golden file that is a symbolic link stays one, and its
// target is written; files a run does not produce are never touched.
//
// # Stale files
//
// [Main], called from TestMain, fails a full, passing run when testdata/
// holds golden files that no test produced, and names them. [Stale] gives
// the list.
//
// # Limits and when not to use
//
// Golden files record what happened, not what should happen: review every
// update. Never store go-cmp diff text in them (it is deliberately unstable).
// For a scenario whose point is one field, an explicit expectation reads
// better than a file.
package golden
