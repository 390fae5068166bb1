// Package encoded answers what an object is once kube-apiserver has
// encoded it: whether two objects encode the same (the etcd3 store's
// no-op check, Equal) and its times at the server's precision
// (ServerTimes), and the unstructured form of managed fields, remembered
// (FieldsV1Memo). It imports nothing of the module.
package encoded
