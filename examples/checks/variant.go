package checks

// Variant selects the correct version of an example controller or its
// deliberately broken twin.
type Variant int

const (
	// Correct is the controller as it should be written.
	Correct Variant = iota
	// Broken has the one bug its type's documentation describes.
	Broken
)

func (v Variant) String() string {
	if v == Broken {
		return "Broken"
	}
	return "Correct"
}
