package semantics

// accepted are the divergences between the fixture's default world and a
// real kube-apiserver that the suite accepts, each with its reason.
var accepted = []Known{}

// fakesKnown are the divergences of client-go's bare fakes, the fixture's
// default world until the server model (issue 11) lands. Delete this list
// when it does: what remains is the model's to fix, or to accept above.
var fakesKnown = []Known{}
