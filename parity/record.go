package parity

import (
	"bytes"
	"io"
	"mime"
	"net/http"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/client-go/rest"

	"github.com/ctrltest/ctrltest/actions"
)

// Recorder records the requests made through the clients of a rest.Config
// as actions.Action values, the same values client-go's fakes give, so that
// the fakes' and a server's requests compare with actions.Diff. Requests
// are parsed by the API server's own request-info parser.
type Recorder struct {
	decoder runtime.Decoder
	infos   *request.RequestInfoFactory

	mu      sync.Mutex
	actions []actions.Action
}

// NewRecorder returns a Recorder that decodes request bodies with decoder
// (for example serializer.NewCodecFactory(scheme).UniversalDeserializer()
// for a scheme that knows every type the controller writes).
func NewRecorder(decoder runtime.Decoder) *Recorder {
	return &Recorder{
		decoder: decoder,
		infos: &request.RequestInfoFactory{
			APIPrefixes:          sets.NewString("api", "apis"),
			GrouplessAPIPrefixes: sets.NewString("api"),
		},
	}
}

// Wrap returns a copy of config whose requests r records.
func (r *Recorder) Wrap(config *rest.Config) *rest.Config {
	c := rest.CopyConfig(config)
	c.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper(func(req *http.Request) (*http.Response, error) {
			r.record(req)
			return rt.RoundTrip(req)
		})
	})
	return c
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// Actions returns the recorded requests, in order.
func (r *Recorder) Actions() []actions.Action {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]actions.Action(nil), r.actions...)
}

// Reset forgets the recorded requests.
func (r *Recorder) Reset() {
	r.mu.Lock()
	r.actions = nil
	r.mu.Unlock()
}

// verbs maps the request-info parser's verbs to client-go's.
var verbs = map[string]string{
	"create":           actions.VerbCreate,
	"update":           actions.VerbUpdate,
	"patch":            actions.VerbPatch,
	"delete":           actions.VerbDelete,
	"deletecollection": actions.VerbDeleteCollection,
	"get":              actions.VerbGet,
	"list":             actions.VerbList,
	"watch":            actions.VerbWatch,
}

func (r *Recorder) record(req *http.Request) {
	info, err := r.infos.NewRequestInfo(req)
	if err != nil || !info.IsResourceRequest {
		return
	}
	verb, ok := verbs[info.Verb]
	if !ok || verb == actions.VerbWatch {
		return
	}
	a := actions.Action{
		Verb:         verb,
		Resource:     schema.GroupVersionResource{Group: info.APIGroup, Version: info.APIVersion, Resource: info.Resource},
		Subresource:  info.Subresource,
		Namespace:    info.Namespace,
		Name:         info.Name,
		FieldManager: req.URL.Query().Get("fieldManager"),
	}
	body := readBody(req)
	switch verb {
	case actions.VerbCreate, actions.VerbUpdate:
		if len(body) > 0 {
			if obj, _, err := r.decoder.Decode(body, nil, nil); err == nil {
				a.Object = obj
				if a.Name == "" {
					if named, ok := obj.(interface{ GetName() string }); ok {
						a.Name = named.GetName()
					}
				}
			}
		}
	case actions.VerbPatch:
		contentType, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type"))
		a.PatchType, a.Patch = types.PatchType(contentType), body
	}
	r.mu.Lock()
	r.actions = append(r.actions, a)
	r.mu.Unlock()
}

// readBody reads a request's body and puts it back for the transport.
func readBody(req *http.Request) []byte {
	if req.Body == nil || req.Body == http.NoBody {
		return nil
	}
	data, err := io.ReadAll(req.Body)
	req.Body.Close()
	req.Body = io.NopCloser(bytes.NewReader(data))
	if err != nil {
		return nil
	}
	return data
}
