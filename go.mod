module github.com/taxkernel/taxkernelbot

go 1.26.0

require (
	github.com/google/go-cmp v0.7.0
	github.com/jimsmart/grobotstxt v1.0.3
	go.yaml.in/yaml/v3 v3.0.6
)

require (
	github.com/onsi/gomega v1.34.1 // indirect
	golang.org/x/exp v0.0.0-20260410095643-746e56fc9e2f // indirect
	golang.org/x/net v0.57.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
	golang.org/x/text v0.41.0 // indirect
)
