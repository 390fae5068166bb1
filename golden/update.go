package golden

import (
	"flag"
	"fmt"
	"os"
	"strconv"
)

// EnvUpdate is the environment variable that, set to a true value ("1",
// "true"), makes every package's golden files be rewritten. Use it for a
// whole tree: `go test ./... -update` fails in packages whose test binary
// does not define -update, `CTRLTEST_UPDATE=1 go test ./...` does not. A
// value that is not a boolean (strconv.ParseBool: "yes" and "on" are not)
// fails every golden comparison, naming the variable, rather than being
// taken for false.
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
// given or EnvUpdate is set to a true value. A value of EnvUpdate that is
// not a boolean counts as false here; Assert and AssertFile fail on it.
func Updating() bool {
	v, _ := updating()
	return v
}

// updating is Updating with the error of an EnvUpdate value that is not a
// boolean.
func updating() (bool, error) {
	if env := os.Getenv(EnvUpdate); env != "" {
		v, err := strconv.ParseBool(env)
		if err != nil {
			return false, fmt.Errorf("%s=%q is not a boolean: set it to 1, t, T, TRUE, true or True to rewrite golden files, or to 0, f, F, FALSE, false or False (or leave it empty) to compare with them", EnvUpdate, env)
		}
		if v {
			return true, nil
		}
	}
	if updateFlag == nil {
		return false, nil
	}
	v, err := strconv.ParseBool(updateFlag.Value.String())
	return err == nil && v, nil
}
