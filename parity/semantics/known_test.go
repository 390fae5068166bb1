package semantics

// accepted are the divergences between the fixture's default world (the
// server model) and a real kube-apiserver that the suite accepts, each
// with its reason. The first entry that matches a divergence accepts it;
// each entry must accept at least one.
var accepted = []Known{{
	Sequence: "Job/*",
	Field:    "* spec.*controller-uid",
	Reason:   "a Job's generated selector and pod labels carry its uid, which the server makes at random",
}, {
	Sequence: "Job/generateName",
	Field:    "* spec.template.metadata.labels.*job-name",
	Reason:   "a Job's pod labels carry its name, which generateName makes at random on the server (a counter in the model)",
}}
