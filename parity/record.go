package parity

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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

	mu      sync.Mutex
	actions []actions.Action
}

// NewRecorder returns a Recorder that decodes request bodies with decoder
// (for example serializer.NewCodecFactory(scheme).UniversalDeserializer()
// for a scheme that knows every type the controller writes).
func NewRecorder(decoder runtime.Decoder) *Recorder {
	return &Recorder{decoder: decoder}
}

// Wrap returns a copy of config whose requests r records.
func (r *Recorder) Wrap(config *rest.Config) *rest.Config {
	return Record(config, r.decoder, func(a actions.Action) {
		r.mu.Lock()
		r.actions = append(r.actions, a)
		r.mu.Unlock()
	}, nil)
}

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

// Response is the server's answer to a recorded request.
type Response struct {
	// Code is the HTTP status code; 0 when the request failed before an
	// answer.
	Code int
	// Message is the message of an error status (metav1.Status).
	Message string
}

// Record returns a copy of config whose resource requests (watches
// excepted) are passed to record, as actions, before they are sent; a nil
// decoder decodes bodies as unstructured objects. When answered is not
// nil, it is passed each recorded request with the server's answer.
// Requests are sent as JSON.
func Record(config *rest.Config, decoder runtime.Decoder, record func(actions.Action), answered func(actions.Action, Response)) *rest.Config {
	if decoder == nil {
		decoder = unstructured.UnstructuredJSONScheme
	}
	infos := &request.RequestInfoFactory{
		APIPrefixes:          sets.NewString("api", "apis"),
		GrouplessAPIPrefixes: sets.NewString("api"),
	}
	c := rest.CopyConfig(config)
	c.ContentType = "application/json"
	c.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper(func(req *http.Request) (*http.Response, error) {
			a, ok := parse(infos, decoder, req)
			if !ok {
				return rt.RoundTrip(req)
			}
			record(a)
			resp, err := rt.RoundTrip(req)
			if answered != nil {
				answered(a, response(resp, err))
			}
			return resp, err
		})
	})
	return c
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// response reads the status of an answer (and, for an error, its message,
// putting the body back).
func response(resp *http.Response, err error) Response {
	if err != nil || resp == nil {
		return Response{}
	}
	r := Response{Code: resp.StatusCode}
	if resp.StatusCode < 300 || resp.Body == nil {
		return r
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(data))
	var status metav1.Status
	if json.Unmarshal(data, &status) == nil {
		r.Message = status.Message
	}
	return r
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

// parse turns a resource request into an action; ok is false for other
// requests and for watches.
func parse(infos *request.RequestInfoFactory, decoder runtime.Decoder, req *http.Request) (a actions.Action, ok bool) {
	info, err := infos.NewRequestInfo(req)
	if err != nil || !info.IsResourceRequest {
		return a, false
	}
	verb, ok := verbs[info.Verb]
	if !ok || verb == actions.VerbWatch {
		return a, false
	}
	a = actions.Action{
		Verb:         verb,
		Resource:     schema.GroupVersionResource{Group: info.APIGroup, Version: info.APIVersion, Resource: info.Resource},
		Subresource:  info.Subresource,
		Namespace:    info.Namespace,
		Name:         info.Name,
		FieldManager: req.URL.Query().Get("fieldManager"),
	}
	if a.Resource.Group == "" && a.Resource.Resource == "namespaces" {
		a.Namespace = "" // the request info names a namespace's own as its namespace; client-go's actions do not
	}
	body := readBody(req)
	switch verb {
	case actions.VerbCreate, actions.VerbUpdate:
		if len(body) > 0 {
			if obj, _, err := decoder.Decode(body, nil, nil); err == nil {
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
	return a, true
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
