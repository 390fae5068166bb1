package fuzz

// knownClass accepts divergences of one class, with the reason they are
// not fixed in the model.
type knownClass struct {
	name, reason string
	match        func(d divergence) bool
}

// knownClasses are the divergence classes the fuzzer accepts; the first
// that matches a divergence accepts it.
var knownClasses = []knownClass{}
