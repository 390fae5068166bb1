package golden

import (
	"flag"
	"os"
	"strconv"
)

// EnvUpdate is the environment variable that, set to a true value ("1",
// "true"), makes every package's golden files be rewritten. Use it for a
// whole tree: `go test ./... -update` fails in packages whose test binary
// does not define -update, `CTRLTEST_UPDATE=1 go test ./...` does not.
const EnvUpdate = "CTRLTEST_UPDATE"

// updateFlag is -update, defined here unless another package of the test
// binary defined it first, in which case that flag is read.
var updateFlag = defineUpdateFlag()

func defineUpdateFlag() *flag.Flag {
	if f := flag.Lookup("update"); f != nil {
		return f
	}
	flag.Bool("update", false, "rewrite golden files with the results of this run (ctrltest)")
	return flag.Lookup("update")
}

// Updating reports whether golden files are to be rewritten: -update was
// given or EnvUpdate is set to a true value.
func Updating() bool {
	if v, err := strconv.ParseBool(os.Getenv(EnvUpdate)); err == nil && v {
		return true
	}
	if updateFlag == nil {
		return false
	}
	v, err := strconv.ParseBool(updateFlag.Value.String())
	return err == nil && v
}
