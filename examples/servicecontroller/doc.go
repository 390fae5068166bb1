// Package servicecontroller tests the cloud-provider service controller.
package servicecontroller
