package mirror_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/ctrltest/ctrltest/ctrlruntime/examples/mirror"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestMirror(t *testing.T) { mirror.Table().Run(t) }
